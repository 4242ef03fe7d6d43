//
// EvictionCall.h
//
// Library: BlueTusk/Pooling
//
// Private: every call the pools make into the eviction policy (doc/plugins.md, "Where and how policies are
// called"). Called WITHOUT the manager's mutex: the caller snapshots the inputs under the lock, calls here,
// and re-validates under the lock. A policy that throws is logged and the fallback policy (the standard one,
// PoolManager::Options::fallbackEviction) decides instead, so that pooling goes on reusing sessions; a call
// slower than SLOW_CALL is logged with its time.
//

#ifndef BlueTusk_EvictionCall_INCLUDED
#define BlueTusk_EvictionCall_INCLUDED

#include "BlueTusk/EvictionPolicy.h"
#include "BlueTusk/BlueTuskHostEndpoint.h"
#include "BlueTusk/SecretRedactor.h"
#include "Poco/Logger.h"
#include <atomic>
#include <string>
#include <vector>

namespace BlueTusk {
namespace Detail {

class EvictionCall
	/// The eviction calls of one PoolManager. Thread-safe (the failure counter is atomic); holds no lock
	/// while a policy runs.
{
public:
	static const Poco::Timespan SLOW_CALL;
		/// A policy call that takes longer is logged (warning) with its time: 100 ms.

	EvictionCall(EvictionPolicy::Ptr policy, EvictionPolicy::Ptr fallback, const ConnectionSettings& settings,
		Poco::Logger& logger, const SecretRedactor& redactor);
		/// policy must not be null; fallback may be (or be policy itself: then the built-in rule applies).

	EvictionPolicy& policy() const;
		/// The policy called first.

	bool keepOnReturn(const BlueTuskHostEndpoint& endpoint, const PooledSessionInfo& session, const PoolSizeInfo& pool,
		Poco::Timestamp now);
		/// The policy's keepOnReturn(); when it throws, the fallback's answer (the built-in rule without
		/// one: keep unless past its lifetime).

	std::vector<std::size_t> selectForEviction(const BlueTuskHostEndpoint& endpoint, const std::vector<PooledSessionInfo>& idle,
		const PoolSizeInfo& pool, Poco::Timestamp now);
		/// The policy's selectForEviction(); when it throws, the fallback's (without one: the sessions
		/// past their lifetime).

	Poco::Timespan lifetimeFor();
		/// The policy's lifetimeFor(); when it throws, the fallback's (without one: 0, unlimited).

	static std::string describe(const EvictionPolicy& policy);
		/// eviction policy "name" (libX.so): the library whose code the object is (dladdr on its vtable),
		/// for messages. Never throws.

private:
	template <class Result, class Call, class Builtin>
	Result guarded(const char* function, const BlueTuskHostEndpoint* endpoint, Call call, Builtin builtin);
		/// call(policy), timed; when it throws: logged, then call(fallback), else builtin().

	void logFailure(const char* function, const BlueTuskHostEndpoint* endpoint, const std::string& what);

	EvictionPolicy::Ptr _policy;
	EvictionPolicy::Ptr _fallback;   /// null when there is none or it is _policy
	const ConnectionSettings& _settings;
	Poco::Logger& _logger;
	const SecretRedactor& _redactor;
	std::atomic<unsigned long long> _failures{0};   /// policy calls that threw, for the log's throttle
};

} } // namespace BlueTusk::Detail

#endif // BlueTusk_EvictionCall_INCLUDED
