//
// StatementInvalidation.h
//
// Library: BlueTusk/Transport
//
// When a prepared statement no longer matches the server's schema (doc/statements.md, "The statement
// cache across schema changes"): which command tags change the schema, which errors mean a stale statement,
// and how an error inside a transaction says so.
//

#ifndef BlueTusk_Detail_StatementInvalidation_INCLUDED
#define BlueTusk_Detail_StatementInvalidation_INCLUDED

#include "BlueTusk/BlueTuskException.h"
#include "BlueTusk/PreparedStatement.h"
#include "ProtocolSession.h"
#include "SessionSupport.h"
#include <cstring>
#include <string>

namespace BlueTusk {
namespace Detail {

enum class Staleness
	/// What an error says about the statement that raised it.
{
	None,          /// nothing: an ordinary error
	Invalidated,   /// certainly stale: 0A000 "cached plan must not change result type", 26000 (statement gone)
	TypesChanged   /// perhaps stale: 42804 or 42P18 on a statement whose parameter types the server inferred
	               /// when it was prepared, which the server keeps however the tables change
};


template <std::size_t N>
inline bool tagStartsWith(const std::string& tag, const char (&prefix)[N])
	/// Literal lengths known at compile time: no strlen for a check that runs on every CommandComplete.
{
	return tag.size() >= N - 1 && std::memcmp(tag.data(), prefix, N - 1) == 0;
}


template <std::size_t N>
inline bool tagEquals(const std::string& tag, const char (&word)[N])
{
	return tag.size() == N - 1 && std::memcmp(tag.data(), word, N - 1) == 0;
}


inline bool changesSchema(const std::string& commandTag)
	/// True for the CommandComplete tags after which a session's cached statements may not match the server
	/// any more: CREATE ..., ALTER ..., DROP ..., COMMENT, IMPORT FOREIGN SCHEMA (what the statements refer to
	/// changed) and DISCARD ALL, DEALLOCATE (the server forgot its prepared statements). Not DISCARD TEMP,
	/// PLANS or SEQUENCES (the pool's own reset sends the first and the last; the server re-plans by itself).
	/// An ordinary command's tag (SELECT, INSERT 0 1, UPDATE 3, ...) is told apart by its first character
	/// or its length. PostgreSQL docs 55.7, CommandComplete: a utility command's tag is its name ("CREATE
	/// TABLE", "ALTER FUNCTION", "DISCARD ALL"); CREATE TABLE AS and SELECT INTO say "SELECT n" (they only
	/// add a table).
{
	if (commandTag.empty()) return false;
	switch (commandTag[0])
	{
	case 'A':
		return tagStartsWith(commandTag, "ALTER ");
	case 'C':
		return tagStartsWith(commandTag, "CREATE ") || tagEquals(commandTag, "COMMENT");
	case 'D':
		return tagStartsWith(commandTag, "DROP ") || tagEquals(commandTag, "DISCARD ALL") || tagStartsWith(commandTag, "DEALLOCATE");
	case 'I':
		return tagEquals(commandTag, "IMPORT FOREIGN SCHEMA");
	default:
		return false;
	}
}


bool hasInferredTypes(const PreparedStatement::Description& statement);
	/// True when the server chose at least one of the statement's parameter types (Parse gave 0 or no type):
	/// such a statement prepared again after a schema change may get other types.

Staleness staleness(const BlueTuskServerException& exc, const PreparedStatement::Description& statement);
	/// Classifies an error of a prepared statement's execution (see Staleness). 42804 and 42P18 count only
	/// for statements of the statement cache with inferred types (an explicit prepare() keeps what it asked for).

BlueTuskServerException staleInTransaction(const BlueTuskServerException& exc, Staleness staleness);
	/// The error as it reaches the caller inside a transaction block, where it cannot be retried: the same
	/// fields and SQLSTATE, the message extended with what happened and what to do (roll back and run the
	/// transaction again; the statement is prepared afresh on its next use).

} // namespace Detail


template <typename Run>
auto ProtocolSession::retryIfStale(PreparedStatement::Description& statement, Run&& run) -> decltype(run())
{
	const bool outside = _transactionStatus == TransactionStatus::Idle;
	try
	{
		return run();
	}
	catch (BlueTuskTypeException&)
	{
		// Refused while encoding, before anything was sent: the parameter types the server inferred may be
		// those of a table as it was before another session changed it. Asked afresh, a value that still
		// does not fit is refused again, and that refusal is the caller's.
		if (_broken || !statement.cached || !Detail::hasInferredTypes(statement)) throw;
		Detail::transportLogger().information("%s: a value did not fit the parameter types of cached statement %s; preparing it again",
			where(), statement.name);
		reprepare(statement);
		return run();
	}
	catch (BlueTuskServerException& exc)
	{
		if (_broken) throw;
		if (noticeTransactionPooler(exc))
		{
			// Server Pooling=auto met a transaction pooler: the session now sends the statement unnamed.
			if (!outside || _transactionStatus != TransactionStatus::Idle) throwPoolerInTransaction(exc);
			return run();
		}
		const Detail::Staleness staleness = Detail::staleness(exc, statement);
		if (staleness == Detail::Staleness::None) throw;
		statement.needsReprepare = true;
		// Inside a transaction the failed statement aborted it: the error is the caller's to handle (the
		// statement is prepared again on its next use). Outside one nothing happened: prepare and retry once.
		if (!outside || _transactionStatus != TransactionStatus::Idle) throw Detail::staleInTransaction(exc, staleness);
		Detail::transportLogger().information("%s: prepared statement %s no longer matched the schema (%s); preparing it again",
			where(), statement.name, exc.sqlState());
		reprepare(statement);
		return run();
	}
}

} // namespace BlueTusk

#endif // BlueTusk_Detail_StatementInvalidation_INCLUDED
