//
// CommitOutcome.h
//
// Library: BlueTusk/Transport
//
// What a transaction whose COMMIT lost its answer became: the record taken in the COMMIT's own packet, the
// judgement of a primary's answer to pg_xact_status(), and the resolver interface that asks one
// (doc/outcomes.md).
//

#ifndef BlueTusk_CommitOutcome_INCLUDED
#define BlueTusk_CommitOutcome_INCLUDED

#include "BlueTusk/Foundation.h"
#include "BlueTusk/BlueTuskHostEndpoint.h"
#include "BlueTusk/Lsn.h"
#include "BlueTusk/QueryResult.h"
#include <memory>
#include <optional>
#include <string>

namespace BlueTusk {

struct BlueTusk_Transport_API CommitRecord
	/// What a transaction knew of itself just before its COMMIT ran, learned in the same packet as the
	/// COMMIT (CAPTURE_SQL goes first, as its own Query message: the server answers it, flushes at its
	/// ReadyForQuery, then runs COMMIT), so it costs no round trip of its own.
{
	static const char* const CAPTURE_SQL;
		/// "SELECT pg_current_xact_id_if_assigned()::text, ..." (PostgreSQL docs 9.27.5, Transaction ID and
		/// Snapshot Information Functions): the epoch-qualified transaction id (xid8, so it never wraps),
		/// NULL when the transaction wrote nothing; the WAL insert position and the timeline (the first 8
		/// hex digits of pg_walfile_name()); NULL for both on a standby. Executable by any user.

	static const char* const BEGIN_CAPTURE_SQL;
		/// As CAPTURE_SQL with pg_current_xact_id(), which assigns the xid: sent with BEGIN when
		/// TransactionOptions::xidAtBegin asks for it.

	BlueTuskHostEndpoint endpoint;   /// where the transaction ran
	std::string xid;                 /// decimal xid8; empty when none was assigned (nothing written)
	Lsn lsnBeforeCommit;             /// pg_current_wal_insert_lsn() before the COMMIT: its commit record lies after
	Poco::UInt32 timeline = 0;       /// the timeline the transaction ran on (0: unknown)
	bool serializable = false;       /// the transaction ran SERIALIZABLE (a read-only one may still fail at commit)
	bool takenAtBegin = false;       /// taken with BEGIN (BEGIN_CAPTURE_SQL): lsnBeforeCommit precedes every write

	bool hasXid() const;
		/// True when the transaction had a transaction id (it wrote something).

	static CommitRecord fromCapture(const BlueTuskHostEndpoint& endpoint, const QueryResult& capture);
		/// Reads CAPTURE_SQL's one row. Throws BlueTuskProtocolException when it is not three columns of
		/// the expected form (the server or a proxy answered something else).

	std::string toString() const;
		/// "xid 1234 on db-a:5432 (timeline 3, WAL before COMMIT 0/3000148)", for messages and logs.
};


enum class CommitOutcome
	/// The answer about a transaction whose COMMIT lost its answer.
{
	Committed,   /// the transaction is committed on the history of the server that answered
	RolledBack,  /// it is not, and never will be on that history (aborted, lost tail, or never seen)
	InProgress,  /// that server still runs it (e.g. COMMIT waiting for a synchronous standby): ask again
	Unknown      /// that server cannot tell (see the explanation)
};

BlueTusk_Transport_API std::string toString(CommitOutcome outcome);
	/// "committed", "rolled back", "in progress", "unknown".


struct BlueTusk_Transport_API StatusAnswer
	/// What one writable server answered to STATUS_SQL (and HISTORY_SQL when its timeline differs).
{
	static const char* const STATUS_SQL;
		/// "SELECT pg_xact_status($1::xid8), ..." with the xid as $1: the status text ('committed',
		/// 'aborted', 'in progress', NULL when the xid is older than the commit log kept) and the server's
		/// timeline. The server refuses an xid it never assigned with SQLSTATE 22023 ("transaction ID ... is
		/// in the future").

	static const char* const HISTORY_SQL;
		/// "SELECT pg_read_file($1)" with 'pg_wal/<timeline>.history': the timeline history file (PostgreSQL
		/// docs 30.4, "Timelines"), one line "<parent timeline> <switch LSN> <reason>" per ancestor. Needs
		/// EXECUTE on pg_read_file(text) (granted by a superuser; PostgreSQL 11+), superuser or
		/// pg_read_server_files; others get SQLSTATE 42501 and historyReadable stays false (as for a
		/// missing file, 58P01).

	BlueTuskHostEndpoint endpoint;        /// the server that answered
	bool xidInFuture = false;             /// 22023: that server never assigned the xid
	std::optional<std::string> status;    /// pg_xact_status(), std::nullopt for NULL
	Poco::UInt32 timeline = 0;            /// its current timeline
	bool historyReadable = false;         /// HISTORY_SQL answered
	std::string history;                  /// its text

	static std::string historyFile(Poco::UInt32 timeline);
		/// "pg_wal/00000003.history".
};


CommitOutcome BlueTusk_Transport_API judgeCommit(const CommitRecord& record, const StatusAnswer& answer, std::string& explanation);
	/// Judges answer about record (doc/outcomes.md, "How the answer is judged"):
	/// - an xid the server never assigned (22023) is RolledBack: the commit, if any, is on a lost tail;
	/// - on the transaction's own timeline the status is the truth (committed / aborted = RolledBack /
	///   in progress / NULL = Unknown);
	/// - on another timeline, with the history readable: when the transaction's timeline ended (switch
	///   LSN) at or before lsnBeforeCommit, its commit record is on the lost tail and the id may have been
	///   given to another transaction since: RolledBack whatever the status says; when it ended after, the
	///   server replayed the transaction's earlier WAL, so the id is its own and the status is the truth
	///   ("in progress" cannot be it after a promotion: RolledBack); for a record takenAtBegin the
	///   position precedes the transaction's writes, so "committed" there proves nothing (Unknown);
	///   a timeline not among the ancestors:
	///   RolledBack (its WAL is not on this history);
	/// - on another timeline without the history: "aborted" and "in progress" are RolledBack (either the
	///   transaction's own answer or the id of a newer transaction, which means the old one was lost);
	///   "committed" is Unknown (it may be another transaction's commit under a reused id).
	/// explanation gets one sentence for messages. Thread-safe (no state).

Lsn BlueTusk_Transport_API timelineSwitchPoint(const std::string& history, Poco::UInt32 timeline, bool& found);
	/// The LSN at which timeline ended in a history file's text; found false when it is not listed.
	/// Throws BlueTuskProtocolException for a line that is not "<timeline> <X/Y> ...".


class BlueTusk_Transport_API CommitOutcomeResolver
	/// Finds out what became of a transaction whose COMMIT lost its answer, by asking a writable server
	/// (Routing's BlueTuskDataSource::outcomeResolver() routes to the current primary). Implementations must
	/// be thread-safe: one serves every transaction of a data source.
{
public:
	using Ptr = std::shared_ptr<CommitOutcomeResolver>;

	virtual ~CommitOutcomeResolver();

	virtual CommitOutcome resolve(const CommitRecord& record, std::string& explanation) = 0;
		/// Returns Committed, RolledBack or Unknown (never InProgress: an implementation asks again until
		/// its deadline, then answers Unknown); explanation says what was asked and answered, for the
		/// exception. Must return within its own bounded deadline and must not throw (failures are Unknown).
};

} // namespace BlueTusk

#endif // BlueTusk_CommitOutcome_INCLUDED
