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

bool isTransactionPoolerSign(const BlueTuskServerException& exc);
	/// True for 26000 (prepared statement does not exist) and 42P05 (already exists) naming one of the
	/// session's own statements ("_bt..."): the statement was prepared on another server session, which only
	/// a transaction pooler between the client and the server does (or another client's DISCARD ALL there).

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
