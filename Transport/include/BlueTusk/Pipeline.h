//
// Pipeline.h
//
// Library: BlueTusk/Transport
//
// Many extended-protocol statements sent before one Sync, their results read in order.
//

#ifndef BlueTusk_Pipeline_INCLUDED
#define BlueTusk_Pipeline_INCLUDED

#include "BlueTusk/Foundation.h"
#include "BlueTusk/BlueTuskException.h"
#include "BlueTusk/Parameter.h"
#include "BlueTusk/PreparedStatement.h"
#include "BlueTusk/QueryResult.h"
#include <memory>
#include <string>
#include <vector>

namespace BlueTusk {

class Session;


struct BlueTusk_Transport_API PipelineCommand
	/// One entry of a pipeline: a statement (SQL text, or a prepared statement) with its parameters, or
	/// a sync point.
{
	bool isSync = false;
	std::string sql;                  /// when statement is not valid: sent with the unnamed statement
	                                  /// (empty for a prepared statement: its description holds the text)
	PreparedStatement statement;
	Parameters parameters;
};


struct BlueTusk_Transport_API PipelineResult
	/// The outcome of one statement of a pipeline, in the order they were added.
{
	enum class Status
	{
		Ok,       /// ran; result holds its rows and command tag (a failure later in the same segment still
		          /// rolls its effects back, see Pipeline)
		Failed,   /// the server rejected it: error holds the ErrorResponse
		Skipped   /// not run, because an earlier statement of the same segment failed
	};

	Status status = Status::Skipped;
	QueryResult result;
	std::shared_ptr<BlueTuskServerException> error;
	std::size_t failedIndex = 0;      /// for Skipped: the index of the statement whose error skipped this one

	std::string describe() const;
		/// "ok: INSERT 0 1", "failed: ERROR: ... (SQLSTATE 23505)", "skipped because of an earlier error in
		/// the pipeline (statement 4)".
};


class BlueTusk_Transport_API Pipeline
	/// Queues statements and sends them together (PostgreSQL docs 55.2.4, Pipelining):
	///
	///     Pipeline pipeline(session);
	///     for (const Order& o: orders) pipeline.add(insert, {o.id, o.customer});
	///     pipeline.sync();                                  // optional sync points split it in segments
	///     pipeline.add("UPDATE stats SET orders = orders + $1", {int(orders.size())});
	///     std::vector<PipelineResult> results = pipeline.run();
	///
	/// Every statement before a sync point (and the end) forms a segment, which PostgreSQL runs as one
	/// implicit transaction when no transaction block is open: if a statement fails, the server skips the
	/// rest of its segment (they report Status::Skipped, naming the failed one) and rolls the segment back,
	/// so the statements before the failure in the same segment are not committed either; the next segment
	/// runs normally. Inside an explicit transaction (BEGIN) a failure aborts the transaction (later
	/// segments fail with 25P02). run() encodes every statement first (each value once; a value that
	/// cannot be sent throws with nothing sent), then sends them in chunks of 256 statements with a Flush
	/// after each (one round trip each), and throws only for a broken session or such a value; server
	/// errors are in the results. The encoded pipeline is held in memory until it is sent (about the size
	/// of its SQL and values). Not thread-safe; the session must outlive it.
{
public:
	explicit Pipeline(Session& session);

	std::size_t add(const std::string& sql, const Parameters& parameters = {});
		/// Queues sql with the unnamed statement (Parse, Bind, Describe, Execute); returns its index.

	std::size_t add(const std::string& sql, Parameters&& parameters);
		/// As above, taking the parameters over instead of copying them (a braced list such as
		/// {id, name} binds here).

	std::size_t add(const PreparedStatement& statement, const Parameters& parameters = {});
		/// Queues a statement prepared on the same session (Bind, Execute); returns its index.

	std::size_t add(const PreparedStatement& statement, Parameters&& parameters);
		/// As above, taking the parameters over instead of copying them.

	void sync();
		/// Ends the current segment.

	std::size_t size() const;
		/// Statements queued.

	std::vector<PipelineResult> run();
		/// Sends everything (a final Sync added), reads every answer, and clears the queue.

private:
	Session& _session;
	std::vector<PipelineCommand> _commands;
	std::size_t _statements = 0;
};

} // namespace BlueTusk

#endif // BlueTusk_Pipeline_INCLUDED
