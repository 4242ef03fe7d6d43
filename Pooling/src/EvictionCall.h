//
// EvictionCall.h
//
// Library: BlueTusk/Pooling
//
// Private: every call the pools make into the eviction policy (doc/plugin-calls.md, "Where and how policies are
// called"). Called WITHOUT the manager's mutex: the caller snapshots the inputs under the lock, calls here,
// and re-validates under the lock. A policy that throws is logged and the fallback policy (the standard one,
// PoolManager::Options::fallbackEviction) decides instead, so that pooling goes on reusing sessions; a call
// slower than SLOW_CALL is logged with its time. A policy with a fallback (a site policy) runs on one of a
// few worker threads and is waited for at most CALL_BOUND; then the fallback decides.
//

#ifndef BlueTusk_EvictionCall_INCLUDED
#define BlueTusk_EvictionCall_INCLUDED

#include "BlueTusk/EvictionPolicy.h"
#include "BlueTusk/BlueTuskHostEndpoint.h"
#include "BlueTusk/SecretRedactor.h"
#include "Poco/Logger.h"
#include <atomic>
#include <memory>
#include <string>
#include <vector>

namespace BlueTusk {
namespace Detail {

class EvictionWorkers;

class EvictionCall
	/// The eviction calls of one PoolManager. Thread-safe (the failure counter is atomic); holds no lock
	/// while a policy runs.
	///
	/// Bounded calls: when there is a fallback (a data source passes the standard policy as the fallback of
	/// a site one), each call runs on one of up to EvictionWorkers::MAX_THREADS worker threads and the
	/// caller waits for its answer at most CALL_BOUND. Past that, or when every worker is still busy with
	/// an earlier slow call, the fallback answers at once and the late call's answer is dropped when it
	/// comes; logged (warning) the first time, then every hundredth. The policy, the inputs and a copy of
	/// the settings are kept by the call itself, so the destructor never waits for a running call. Without
	/// a fallback (the standard policy, a pool of tests) the policy is called on the caller's thread.
{
public:
	static const Poco::Timespan SLOW_CALL;
		/// A policy call that takes longer is logged (warning) with its time: 100 ms.

	static const Poco::Timespan CALL_BOUND;
		/// How long a pool's caller waits for a bounded call's answer: 200 ms.

	EvictionCall(EvictionPolicy::Ptr policy, EvictionPolicy::Ptr fallback, const ConnectionSettings& settings,
		Poco::Logger& logger, const SecretRedactor& redactor);
		/// policy must not be null; fallback may be (or be policy itself: then the built-in rule applies).

	~EvictionCall();
		/// Ends the idle worker threads; never waits for a running call.

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
		/// call(policy), timed (bounded when there are workers); when it throws or was not answered in time:
		/// logged, then call(fallback), else builtin(). call captures its inputs by value.

	template <class Result, class Call>
	bool bounded(const char* function, const BlueTuskHostEndpoint* endpoint, Call call, Result& result);
		/// call(policy) on a worker, waited for CALL_BOUND: true with result; false (logged) when not answered
		/// in time or no worker was free. Rethrows what the policy threw.

	void logFailure(const char* function, const BlueTuskHostEndpoint* endpoint, const std::string& what);
	void logLate(const char* function, const BlueTuskHostEndpoint* endpoint, const std::string& why);

	EvictionPolicy::Ptr _policy;
	EvictionPolicy::Ptr _fallback;   /// null when there is none or it is _policy
	std::shared_ptr<const ConnectionSettings> _settings;   /// a copy: a late call may outlive the pools
	Poco::Logger& _logger;
	const SecretRedactor& _redactor;
	std::atomic<unsigned long long> _failures{0};   /// policy calls that threw, for the log's throttle
	std::atomic<unsigned long long> _late{0};       /// bounded calls not answered in time, for the log's throttle
	std::shared_ptr<EvictionWorkers> _workers;      /// null: calls run on the caller's thread (no fallback)
};

} } // namespace BlueTusk::Detail

#endif // BlueTusk_EvictionCall_INCLUDED
