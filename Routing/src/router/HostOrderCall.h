//
// HostOrderCall.h
//
// Library: BlueTusk/Routing
//
// The router's call of HostOrderPolicy::plan(), bounded by the checkout's deadline (doc/plugin-calls.md, "Where
// and how policies are called").
//

#ifndef BlueTusk_Detail_HostOrderCall_INCLUDED
#define BlueTusk_Detail_HostOrderCall_INCLUDED

#include "BlueTusk/ConnectionSettings.h"
#include "BlueTusk/HostOrderPolicy.h"
#include "Poco/Timestamp.h"
#include <string>
#include <vector>

namespace BlueTusk {
namespace Detail {

class HostOrderCall
	/// Calls plan() for one pass of the router. No lock is held by the caller.
	///
	/// The standard policies (their code in the standard host-order library) are called on the caller's
	/// thread. Any other policy is called through PolicyCallBound (PolicyCallBound.h): handed to a policy worker,
	/// and the caller waits for it until the checkout's deadline (Checkout Timeout from the start of the
	/// checkout; with Checkout Timeout=0, Timeout, else 15 s; never less than 100 ms, so that the passes of
	/// Failover Timeout after the checkout's deadline still call it): a synchronous call cannot be
	/// interrupted, so at the deadline the caller stops waiting, the late call's result is dropped when it
	/// comes, and the checkout fails. At most PolicyCallBound::MAX_CALLS site policy calls run at once
	/// (process-wide, counted when they start); when all of them are late, plan() is not called and the
	/// checkout fails at once. Thread-safe.
	///
	/// Every failure is logged (error, BlueTusk.Routing) and thrown as a BlueTuskPluginException naming the
	/// family, the policy and its library: plan() threw (a Poco or std::exception or anything else), it did
	/// not return in time (with the time waited), or too many late calls are running.
{
public:
	static const int MAX_LATE_CALLS = 16;   /// PolicyCallBound::MAX_CALLS

	static HostOrderPlan plan(const HostOrderPolicy::Ptr& policy, const std::vector<HostCandidate>& candidates,
		Poco::Timestamp deadline, const ConnectionSettings& settings);
		/// The policy's plan for candidates. deadline: the checkout's (Poco::Timestamp::TIMEVAL_MAX: none).
		/// Throws BlueTuskPluginException (above); its message passes the settings' redactor.

	static std::string describe(const HostOrderPolicy& policy);
		/// host order policy "name" (libX.so): the library is the one whose code the object is (dladdr on
		/// its vtable; a built-in class names the program). Never throws.

	static bool isStandard(const HostOrderPolicy& policy);
		/// Whether the object's code is in the standard host-order plugin library (called inline).

	static int lateCalls();
		/// The calls that did not return by their deadline and are still running (for tests).
};


bool codeIsInLibrary(const void* object, const char* library);
	/// Whether the class of object (a polymorphic object) has its code (its vtable, found with dladdr) in the
	/// plugin library of base name library (HOST_ORDER_PLUGIN_LIBRARY): how a standard policy is told from
	/// a site one. One dladdr; never throws.

} } // namespace BlueTusk::Detail

#endif // BlueTusk_Detail_HostOrderCall_INCLUDED
