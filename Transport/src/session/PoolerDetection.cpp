//
// PoolerDetection.cpp
//
// Library: BlueTusk/Transport
//

#include "PoolerDetection.h"
#include <atomic>
#include <mutex>
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

} // namespace


bool isTransactionPoolerSign(const BlueTuskServerException& exc)
{
	const std::string& state = exc.sqlState();
	if (state != "26000" && state != "42P05") return false;
	return exc.fields().message.find("\"_bt") != std::string::npos;
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
