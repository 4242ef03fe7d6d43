//
// PolicyCallBound.h
//
// Library: BlueTusk/Routing
//
// The one mechanism that bounds a site policy's call in Routing: the call is handed to a persistent worker
// thread and the caller waits for it until a deadline (doc/plugin-calls.md, "Where and how policies are called").
//

#ifndef BlueTusk_Detail_PolicyCallBound_INCLUDED
#define BlueTusk_Detail_PolicyCallBound_INCLUDED

#include "BlueTusk/SecretRedactor.h"
#include "Poco/Timespan.h"
#include "Poco/Timestamp.h"
#include <exception>
#include <functional>
#include <memory>
#include <optional>
#include <string>

namespace BlueTusk {
namespace Detail {

struct PolicyCallLimit
	/// What a bounded call of a site policy waits for, and how its failures are named.
{
	Poco::Timestamp deadline{Poco::Timestamp::TIMEVAL_MAX};   /// TIMEVAL_MAX: now + BOUND_WITHOUT_DEADLINE
	std::string deadlineText = "the bound of calls made outside a checkout (15 s)";
		/// what the deadline is, for the message ("the checkout's deadline (Checkout Timeout 1000 ms)")
	SecretRedactor redactor;   /// every message passes it (the settings' redactor; default: user info only)
};


class PolicyCallBound
	/// Hands a site policy's call to a worker thread while the caller waits for it until the limit's
	/// deadline (never less than MIN_WAIT from the call's start). A synchronous call cannot be
	/// interrupted: at the deadline the caller stops waiting and the late call runs on, its result dropped.
	///
	/// The workers are a small process-wide pool of persistent threads, parked on a condition variable
	/// between calls (a hand-off costs two wake-ups, not a thread start): a worker is started only when
	/// none is parked, and parks again when its call returns (at most MAX_CALLS parked; one more ends). A
	/// worker whose call is late is not handed another call until that call returns: the next call takes
	/// another worker (or a new one), so a late call never delays a later one.
	///
	/// The cap is hard: a call takes one of MAX_CALLS slots when it is handed off and gives it back when it
	/// returns, so at most MAX_CALLS site policy calls (late or not) run at once in the process.
	/// A caller finding every slot taken by a late call fails at once; else it waits, within its deadline,
	/// for a slot. Used for host order plan(), the target-session calls, retry calls and name() at lookup.
	///
	/// Each policy object (the owner given) holds at most POLICY_SHARE of the slots at once, late calls
	/// included: a policy whose calls never return saturates its own share, not the process's, and the
	/// other policies keep MAX_CALLS - POLICY_SHARE slots. A call of a policy whose POLICY_SHARE calls are
	/// all late fails at once, naming that policy; one whose share is busy with calls still in time waits
	/// for it, within its deadline. A call without an owner counts against the process cap only.
	/// Thread-safe.
	///
	/// Failures of the bound itself (late; no slot) are logged once, at error on BlueTusk.Routing, and thrown
	/// as a BlueTuskPluginException starting with the description given; what the call itself threw is
	/// handed back to the caller untouched, for it to name.
{
public:
	static constexpr int MAX_CALLS = 16;
	static constexpr int POLICY_SHARE = 4;   /// slots one policy object may hold at once (late calls included)
	static const Poco::Timespan BOUND_WITHOUT_DEADLINE;   /// 15 s
	static const Poco::Timespan MIN_WAIT;                 /// 100 ms

	static std::exception_ptr run(std::function<void()> call, const PolicyCallLimit& limit,
		const std::function<std::string()>& description, const std::string& function, const void* owner = nullptr);
		/// Runs call (which must own what it uses: it may outlive the caller) within the limit. Returns what
		/// call threw (null when it returned). owner: the policy object called (its share of the slots;
		/// null: none). Throws BlueTuskPluginException, logged:
		///     <description> did not return from <function> within N ms, <deadlineText>; ...
		///     <description> was not called: its 4 earlier calls have not returned by their deadline and
		///     still run (one policy holds at most 4 of the 16 slots at once; other policies keep theirs)
		///     <description> was not called: 16 earlier calls of site policies have not returned by their
		///     deadline and still run (at most 16 run at once; 4 of them <the description of the policy
		///     holding most late calls>'s)
		/// description is asked only for a message (it is the policy's "family policy "name" (lib)").

	template <class R>
	static R call(std::function<R()> function, const PolicyCallLimit& limit, const std::function<std::string()>& description,
		const std::string& name, std::exception_ptr& thrown, const void* owner = nullptr)
		/// function's result; thrown is set (and a default R returned) when function threw.
	{
		auto result = std::make_shared<std::optional<R>>();
		thrown = run([function, result]() { result->emplace(function()); }, limit, description, name, owner);
		if (thrown || !*result) return R();
		return std::move(**result);
	}

	static int lateCalls();
		/// Calls that did not return by their deadline and still run (for tests).

	static int runningCalls();
		/// Calls running on workers, late ones included (for tests).

	static int lateCallsOf(const void* owner);
		/// Late calls of the policy object owner that still run (for tests).

	static int workerThreads();
		/// Worker threads alive, parked or running a call (for tests).

	static int startedWorkers();
		/// Worker threads started since the process began (for tests: a hand-off to a parked worker starts none).
};


class PolicyDeadline
	/// The deadline of the checkout or open under way on this thread, for calls that are not handed it
	/// (the target-session calls, made from many places). Thread-local.
{
public:
	enum class Kind
	{
		Checkout,   /// a checkout or open: Checkout Timeout (with 0, Timeout)
		Creation    /// a data source's creation: Timeout (its checkoutTimeout is not used)
	};

	class Scope
		/// Sets this thread's deadline for its lifetime, from now (nested scopes keep the earliest). Cheap: a
		/// timestamp and a few thread-local writes; the limit's text and redactor copy are made only when a
		/// site policy is called (current()).
	{
	public:
		Scope(const Poco::Timespan& checkoutTimeout, const Poco::Timespan& timeout, const SecretRedactor& redactor,
			Kind kind = Kind::Checkout);
			/// The checkout's deadline (checkoutDeadline()); redactor must outlive the scope. Kind::Creation:
			/// Timeout from now (15 s with 0), its messages saying "the data source creation's deadline".
		~Scope();
		Scope(const Scope&) = delete;
		Scope& operator = (const Scope&) = delete;

	private:
		struct State
		{
			bool set = false;
			Poco::Timestamp deadline;
			Poco::Timespan checkoutTimeout;
			Poco::Timespan timeout;
			const SecretRedactor* redactor = nullptr;
			Kind kind = Kind::Checkout;
		};

		State _previous;
		friend class PolicyDeadline;
		static thread_local State current;
	};

	static PolicyCallLimit current();
		/// The scope's deadline and text, or the default limit (15 s from now) outside any scope.

	static Poco::Timestamp checkoutDeadline(const Poco::Timespan& checkoutTimeout, const Poco::Timespan& timeout);
		/// now + Checkout Timeout; with Checkout Timeout=0, Timeout; else BOUND_WITHOUT_DEADLINE.

	static PolicyCallLimit forCheckout(const Poco::Timespan& checkoutTimeout, const Poco::Timespan& timeout,
		const SecretRedactor& redactor);
		/// From now: the deadline (checkoutDeadline()) and its text, "the checkout's deadline (Checkout Timeout
		/// 1000 ms)" (or Timeout's, or the 15 s bound's).

	static PolicyCallLimit forCreation(const Poco::Timespan& timeout, const SecretRedactor& redactor);
		/// From now: Timeout (15 s with 0), "the data source creation's deadline (Timeout 15000 ms from its
		/// start)" (or "the bound of a data source creation with Timeout=0 (15 s)").
};

} } // namespace BlueTusk::Detail

#endif // BlueTusk_Detail_PolicyCallBound_INCLUDED
