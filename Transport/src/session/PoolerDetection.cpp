//
// PoolerDetection.cpp
//
// Library: BlueTusk/Transport
//

#include "PoolerDetection.h"
#include <atomic>
#include <cstdio>
#include <mutex>
#include <random>
#include <set>

namespace BlueTusk {
namespace Detail {

namespace {

struct Registry
{
	std::mutex mutex;
	std::set<std::string> endpoints;
	std::atomic<Poco::UInt64> generation{0};
};


Registry& registry()
{
	static Registry instance;
	return instance;
}


const std::string& processTag()
	/// 16 random hex digits, drawn once per process.
{
	static const std::string tag = []
	{
		std::random_device device;
		char text[17];
		std::snprintf(text, sizeof(text), "%08x%08x", unsigned(device()), unsigned(device()));
		return std::string(text);
	}();
	return tag;
}

} // namespace


std::string statementName(Poco::UInt64 sessionId, Poco::UInt64 number)
{
	return "_bt" + processTag() + "_" + std::to_string(sessionId) + "_" + std::to_string(number);
}


bool isTransactionPoolerSign(const BlueTuskServerException::Fields& fields)
{
	const std::string& state = fields.sqlState;
	if (state != "26000" && state != "42P05") return false;
	return fields.message.find("\"_bt") != std::string::npos;
}


void hintTransactionPooler(BlueTuskServerException::Fields& fields, const std::string& endpoint)
{
	const std::string hint = "Server Pooling=session, but " + endpoint + " is probably a transaction pooler (such as PgBouncer's "
		"pool_mode=transaction): BlueTusk's named statement was prepared on another server session. Set Server Pooling=transaction "
		"(or leave it at auto) for this endpoint (doc/poolers.md)";
	fields.hint = fields.hint.empty() ? hint : fields.hint + "; " + hint;
}


bool markTransactionPooler(const std::string& endpoint)
{
	Registry& r = registry();
	std::lock_guard<std::mutex> lock(r.mutex);
	if (!r.endpoints.insert(endpoint).second) return false;
	r.generation.fetch_add(1, std::memory_order_release);
	return true;
}


bool isTransactionPooler(const std::string& endpoint)
{
	Registry& r = registry();
	std::lock_guard<std::mutex> lock(r.mutex);
	return r.endpoints.count(endpoint) > 0;
}


void forgetTransactionPooler(const std::string& endpoint)
{
	Registry& r = registry();
	std::lock_guard<std::mutex> lock(r.mutex);
	r.endpoints.erase(endpoint);
}


Poco::UInt64 transactionPoolerGeneration()
{
	return registry().generation.load(std::memory_order_acquire);
}

} } // namespace BlueTusk::Detail
