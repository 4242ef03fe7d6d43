//
// PreparedStatement.h
//
// Library: BlueTusk/Transport
//
// A handle to a named statement prepared on one session (Parse + Describe).
//

#ifndef BlueTusk_PreparedStatement_INCLUDED
#define BlueTusk_PreparedStatement_INCLUDED

#include "BlueTusk/Foundation.h"
#include "BlueTusk/QueryResult.h"
#include "Poco/Types.h"
#include <memory>
#include <string>
#include <vector>

namespace BlueTusk {

class BlueTusk_Transport_API PreparedStatement
	/// What Session::prepare() returns: the statement's name on the server, its SQL, the parameter types
	/// the server inferred (ParameterDescription) and its result columns (RowDescription), known before
	/// anything is executed (PostgreSQL docs 55.2.3 "Extended Query"). Execute it with
	/// Session::execute(statement, parameters) on the session that prepared it; on another session that
	/// throws BlueTuskUsageException. Columns whose types BlueTusk decodes come back in binary.
	///
	/// A copyable handle (shared): copies refer to the same statement. Should DDL change what the
	/// statement returns (SQLSTATE 0A000 "cached plan must not change result type") or the statement
	/// vanish (26000, e.g. after DISCARD ALL), the session prepares it again and retries once when no
	/// transaction is open; the handle then shows the new columns. Not thread-safe (like its session).
{
public:
	struct Description
		/// The state shared by the handles and the session (implementation detail of sessions).
	{
		std::string name;                          /// the server-side name ("_bt3"), empty once closed
		std::string sql;
		std::vector<Poco::UInt32> parseTypes;      /// the types given in Parse (0: inferred by the server)
		std::vector<Poco::UInt32> parameterTypes;  /// ParameterDescription
		std::vector<ColumnDescription> columns;    /// RowDescription, formatCode as requested in Bind
		std::vector<Poco::Int16> resultFormats;    /// one per column: 1 binary, 0 text
		Poco::UInt64 sessionId = 0;                /// Session::sessionId() of the owner
		bool cached = false;                       /// owned by the statement cache (auto-prepared)
		bool needsReprepare = false;               /// invalidated on the server: prepare before the next use
		bool unnamed = false;
			/// Server Pooling=transaction: not kept on the server; its run sends Parse of the unnamed statement in
			/// front of its Bind (name is then the session's own handle name, never sent)
	};

	PreparedStatement();
		/// A handle to nothing (isValid() false).

	explicit PreparedStatement(std::shared_ptr<Description> description);

	bool isValid() const;
		/// True when the handle refers to a statement that has not been closed (unprepare()).

	const std::string& name() const;
	const std::string& sql() const;

	const std::vector<Poco::UInt32>& parameterTypes() const;
		/// The type OID of each placeholder $1..$n, as the server inferred or was told.

	const std::vector<ColumnDescription>& columns() const;
		/// The result columns (empty for a statement that returns no rows).

	Poco::UInt64 sessionId() const;
		/// The id of the session that prepared it.

	const std::shared_ptr<Description>& description() const;

private:
	const Description& checked() const;

	std::shared_ptr<Description> _description;
};


struct BlueTusk_Transport_API StatementStatistics
	/// Counters of a session's prepared statements and statement cache (and their sums over a pool).
{
	Poco::UInt64 prepared = 0;    /// named statements prepared (Parse messages sent for them), re-prepares included
	Poco::UInt64 cacheHits = 0;   /// query() executions served by a statement already in the cache
	Poco::UInt64 evictions = 0;   /// cached statements closed to make room (Max Auto Prepare)
	Poco::UInt64 reprepared = 0;  /// statements prepared again after DDL or DISCARD invalidated them
};

} // namespace BlueTusk

#endif // BlueTusk_PreparedStatement_INCLUDED
