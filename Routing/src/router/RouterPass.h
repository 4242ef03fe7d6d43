//
// RouterPass.h
//
// Library: BlueTusk/Routing
//
// What Router's source files share about one pass: the planned endpoints (Slot), the pass's outcome so
// far (PassState), the expectation per endpoint, and small helpers.
//

#ifndef BlueTusk_Detail_RouterPass_INCLUDED
#define BlueTusk_Detail_RouterPass_INCLUDED

#include "Router.h"
#include "Poco/Clock.h"
#include "Poco/Logger.h"
#include <algorithm>
#include <memory>
#include <string>
#include <vector>

namespace BlueTusk {
namespace Detail {

enum class Expect
{
	Accept,   /// the learned role is accepted (or every role is: target any)
	Unknown,  /// nothing learned (or too old): may be accepted
	Fallback, /// the learned role is a fallback for the target
	Reject    /// the learned role is rejected
};


inline Poco::Logger& logger()
{
	static Poco::Logger& instance = Poco::Logger::get("BlueTusk.Routing");
	return instance;
}


inline double millisecondsSince(const Poco::Clock& start)
{
	return static_cast<double>(start.elapsed()) / 1000.0;
}




struct Router::Slot
	/// One planned endpoint in one pass.
{
	std::size_t position = 0;      /// index in the host list as written
	BlueTuskHostEndpoint endpoint;
	EndpointPool* pool = nullptr;
	Expect expect = Expect::Unknown;
	bool down = false;
	int tier = 0;
	bool declined = false;         /// a session of it was not accepted in this pass (its role, or a freshness
	                               /// rule, made it a fallback or a reject): no longer a preferred endpoint
	bool failedNow = false;        /// an open of it failed while this checkout waited for it: not tried
	                               /// again in this pass, and no longer a preferred endpoint
	bool settled = false;          /// it rejected this pass's target or failed in this pass: neither tried
	                               /// again nor waited for until the next pass (PassState::settled)
};


struct Router::PassState
{
	HostAttemptList& log;
	const int number;              /// this pass, from 1 (HostAttempt::pass)
	PoolEntryPtr winner;
	PoolEntryPtr retained;         /// the first healthy fallback
	std::vector<EndpointPool*> saturated;      /// acceptable endpoints without capacity now (tiers 0-1)
	std::vector<EndpointPool*> saturatedLate;  /// the same for tier 2
	std::vector<EndpointPool*> preferredOpening;
		/// tier-0 endpoints that are up and below Maximum Pool Size but could not open now (Max Connecting
		/// opens in flight, earlier checkouts waiting): the checkout waits for them before it takes a
		/// fallback (doc/pooling.md, "Preferred endpoints")
	bool preferredWaitOver = false;  /// the wait for them ran into Checkout Timeout: fallbacks may be taken
	std::unique_ptr<Poco::Exception> preferredTimeout;  /// what that wait threw, thrown if no fallback is found
	std::vector<EndpointPool*> failedWhileWaiting;
		/// preferred endpoints whose open in flight failed while the checkout waited for them (Slot::failedNow)
	std::vector<EndpointPool*> declined;
		/// endpoints a session of which was not accepted in this pass (Slot::declined), kept when the pass
		/// plans anew after a wait
	std::vector<EndpointPool*> settled;
		/// endpoints that answered this pass with a role its target rejects, or failed to open (not for
		/// capacity): the pass does not open, probe or wait for them again, so a pass that re-plans after a
		/// wait ends when nothing acceptable is left instead of logging in again until Checkout Timeout
	std::unique_ptr<Poco::Exception> authFailure;
	std::string authEndpoint;
	bool raced = false;            /// attempts ran at once (parallel): others may have been contacted

	PassState(HostAttemptList& l, int n): log(l), number(n)
	{
	}

	void record(HostAttempt& attempt)
		/// Appends attempt to the log as one of this pass.
	{
		attempt.pass = number;
		log.push_back(attempt);
	}

	~PassState()
	{
		releaseAll();
	}

	PoolEntryPtr takeWinner()
		/// The winner; a fallback retained meanwhile goes back to its pool.
	{
		if (retained)
		{
			EndpointPool* pool = retained->pool;
			pool->release(std::move(retained));
		}
		return std::move(winner);
	}

	void releaseAll() noexcept
	{
		for (PoolEntryPtr* entry: {&winner, &retained})
		{
			if (*entry)
			{
				EndpointPool* pool = (*entry)->pool;
				pool->release(std::move(*entry));
			}
		}
	}

	void addSaturated(EndpointPool* pool, int tier)
	{
		std::vector<EndpointPool*>& list = tier < 2 ? saturated : saturatedLate;
		if (std::find(list.begin(), list.end(), pool) == list.end()) list.push_back(pool);
	}

	void decline(Slot& slot)
		/// A session of slot was not accepted: slot is no longer a preferred endpoint in this pass.
	{
		slot.declined = true;
		if (std::find(declined.begin(), declined.end(), slot.pool) == declined.end()) declined.push_back(slot.pool);
	}

	void settle(Slot& slot)
		/// slot rejected the target or failed: not tried again, nor waited for, in this pass.
	{
		slot.settled = true;
		if (std::find(settled.begin(), settled.end(), slot.pool) == settled.end()) settled.push_back(slot.pool);
	}

	bool isSettled(const EndpointPool* pool) const
	{
		return std::find(settled.begin(), settled.end(), pool) != settled.end();
	}

	void addShortage(Slot& slot, PoolShortage shortage)
		/// slot's pool gave no room (and does not drain): it is waited for if nothing else is found, and
		/// a preferred endpoint that is only opening holds the fallbacks back.
	{
		addSaturated(slot.pool, slot.tier);
		if (slot.tier == 0 && shortage == PoolShortage::Opening && !slot.declined &&
			std::find(preferredOpening.begin(), preferredOpening.end(), slot.pool) == preferredOpening.end())
		{
			preferredOpening.push_back(slot.pool);
		}
	}
};

} } // namespace BlueTusk::Detail

#endif // BlueTusk_Detail_RouterPass_INCLUDED
