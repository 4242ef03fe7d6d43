//
// PoolerDetection.h
//
// Library: BlueTusk/Transport
//
// Server Pooling=auto (doc/poolers.md): the sign that an endpoint sits behind a transaction pooler, and the
// endpoints of this process found so, which every session of Server Pooling=auto to them follows.
//

#ifndef BlueTusk_Detail_PoolerDetection_INCLUDED
#define BlueTusk_Detail_PoolerDetection_INCLUDED

#include "BlueTusk/BlueTuskException.h"
#include "BlueTusk/Foundation.h"
#include "Poco/Types.h"
#include <string>

namespace BlueTusk {
namespace Detail {

std::string statementName(Poco::UInt64 sessionId, Poco::UInt64 number);
	/// The server-side name of a session's number-th named statement: "_bt", a random tag of the process,
	/// the session's id and number ("_bt3f2a..._7_1", under NAMEDATALEN). No other session, of this process or
	/// an earlier one, uses it: behind a transaction pooler, whose server sessions keep the named statements
	/// of clients long gone, a statement run on the wrong server session then meets 26000 (the sign below),
	/// never another client's statement of the same name (with "_bt<n>" names: 08P01 "bind message
	/// supplies 1 parameters, but prepared statement "_bt1" requires 3", seen; a wrong answer when the
	/// parameter counts match).

bool isTransactionPoolerSign(const BlueTuskServerException::Fields& fields);
	/// True for 26000 (prepared statement does not exist) and 42P05 (already exists) naming one of the
	/// session's own statements ("_bt..."): the statement was prepared on another server session, which only
	/// a transaction pooler between the client and the server does (or another client's DISCARD ALL there).

inline bool isTransactionPoolerSign(const BlueTuskServerException& exc)
{
	return isTransactionPoolerSign(exc.fields());
}

void hintTransactionPooler(BlueTuskServerException::Fields& fields, const std::string& endpoint);
	/// Server Pooling=session met the sign on a peer not shown to be the server: a HINT (field H, shown by
	/// the exception's text) that endpoint is probably a transaction pooler and Server Pooling=transaction or
	/// auto is needed. A hint the server sent is kept, the new one after it.

bool markTransactionPooler(const std::string& endpoint);
	/// Records endpoint ("host:port") as behind a transaction pooler; true the first time (the caller logs).
	/// Thread-safe.

BlueTusk_Transport_API bool isTransactionPooler(const std::string& endpoint);
	/// True once markTransactionPooler(endpoint) was called in this process. Thread-safe.

BlueTusk_Transport_API void forgetTransactionPooler(const std::string& endpoint);
	/// For the project's tests only (testsuite/integration/Pooler): forgets endpoint, so that new sessions of
	/// Server Pooling=auto to it start in session pooling and meet the first sign again (sessions that
	/// switched stay switched). Thread-safe.

Poco::UInt64 transactionPoolerGeneration();
	/// Grows with every endpoint marked: a session compares it with the value it saw (one relaxed atomic
	/// load per command) before looking the endpoint up.

} } // namespace BlueTusk::Detail

#endif // BlueTusk_Detail_PoolerDetection_INCLUDED
