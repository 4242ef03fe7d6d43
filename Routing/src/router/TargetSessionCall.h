//
// TargetSessionCall.h
//
// Library: BlueTusk/Routing
//
// Every call BlueTusk makes on a site target-session policy, guarded (doc/plugin-calls.md, "Where and how
// policies are called").
//

#ifndef BlueTusk_Detail_TargetSessionCall_INCLUDED
#define BlueTusk_Detail_TargetSessionCall_INCLUDED

#include "BlueTusk/TargetSessionPolicy.h"
#include <atomic>
#include <exception>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace BlueTusk {
namespace Detail {

class GuardedTargetSessionPolicy: public TargetSessionPolicy
	/// A site target-session policy as BlueTusk calls it: each call is forwarded to the policy, and anything
	/// it throws (a Poco::Exception, a std::exception, anything else) is logged at error on BlueTusk.Routing
	/// and thrown as a BlueTuskPluginException naming the family, the policy and its library:
	///
	///     target session policy "zone-standby" (libX.so) failed in classify(standby, db-a:5432): std::exception: boom
	///
	/// configure() passes a Poco::Exception through unchanged (the subsystem reports it as the policy
	/// rejecting its configuration); anything else it throws becomes the BlueTuskPluginException above.
	/// name() is asked once, by the routing context before the guard is made (bounded), and kept.
	/// Thread-safe as the policy is.
	///
	/// needsRole() and classify() are bounded (PolicyCallBound.h): each is handed to a policy worker, waited for
	/// until this thread's PolicyDeadline (the checkout's or open's, set by the data source and the router;
	/// 15 s outside one); past it the call is abandoned, logged once, and a BlueTuskPluginException
	/// ("... did not return from classify(standby, a:5432) within N ms, the checkout's deadline ...") is
	/// thrown. needsRole()'s first answer is kept (it must be constant), and so is classify(role)'s for each
	/// role (the answer without a server: it describes the target, and the data source's pools keep it
	/// from their creation too); classify(role, endpoint) is asked each time. configure() runs on the caller's
	/// thread (once, at configuration).
{
public:
	GuardedTargetSessionPolicy(TargetSessionPolicy::Ptr policy, std::string name);
		/// name: what the policy's name() returned (asked once, bounded, by the routing context).

	std::string name() const override;
	bool needsRole() const override;
	RoleVerdict classify(ServerRole role) const override;
	RoleVerdict classify(ServerRole role, const BlueTuskHostEndpoint& endpoint) const override;
	void configure(const Poco::Util::AbstractConfiguration& config) override;

	std::vector<RoleVerdict> classifyEach(const std::vector<std::pair<ServerRole, BlueTuskHostEndpoint>>& asks) const;
		/// classify(role, endpoint) of each ask, in order, in ONE bounded call (one hand-off to a worker,
		/// not one per ask): how the router asks about every candidate of a pass. Fails like classify();
		/// a throw names the ask that threw ("classify(standby, b:5432)"), a late call every ask
		/// ("classify() of a:5432 (primary), b:5432 (standby)").

	std::vector<RoleVerdict> classifyEachOrReject(const std::vector<std::pair<ServerRole, BlueTuskHostEndpoint>>& asks,
		std::vector<std::string>& failures) const;
		/// classifyEach(), but an ask whose classify() throws does not fail the others: it is answered
		/// Reject (not acceptable for this pass), its failure logged once at error on BlueTusk.Routing
		/// (redacted, naming the family, the policy and the library, as classify()'s) and its message appended
		/// to failures. One ask is asked the same way. A late or refused call throws as classifyEach().

	const TargetSessionPolicy& policy() const;
		/// The guarded policy.

	static TargetSessionPolicy::Ptr guard(TargetSessionPolicy::Ptr policy, const std::string& name);
		/// policy itself when its code is in the standard target-session library (no guard, no cost), else
		/// a GuardedTargetSessionPolicy over it (name: the policy's own name()). Null stays null.

private:
	[[noreturn]] void fail(const std::string& call, const std::exception_ptr& thrown) const;
		/// Logs and throws what the call threw as a BlueTuskPluginException (call: "classify(standby)").

	template <class R>
	R bounded(std::function<R()> call, const std::string& function) const;
		/// call (which owns what it uses) through PolicyCallBound, within this thread's PolicyDeadline.

	TargetSessionPolicy::Ptr _policy;
	mutable std::atomic<int> _needsRole{-1};   /// needsRole()'s first answer (1, 0), -1 before it
	mutable std::atomic<int> _roleVerdicts[4] = {{-1}, {-1}, {-1}, {-1}};
		/// classify(role)'s first answer per ServerRole (a RoleVerdict's value), -1 before it
	std::string _name;
	std::string _description;   /// target session policy "name" (libX.so)
};

} } // namespace BlueTusk::Detail

#endif // BlueTusk_Detail_TargetSessionCall_INCLUDED
