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


inline std::string formatMs(double ms)
{
	return std::to_string(static_cast<long>(ms + 0.5));
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
	bool rejectedNow = false;      /// an idle session showed in this pass that the target rejects it
};


struct Router::PassState
{
	HostAttemptList& log;
	const int number;              /// this pass, from 1 (HostAttempt::pass)
	PoolEntryPtr winner;
	PoolEntryPtr retained;         /// the first healthy fallback
	std::vector<EndpointPool*> saturated;      /// acceptable endpoints without capacity now (tiers 0-1)
	std::vector<EndpointPool*> saturatedLate;  /// the same for tier 2
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
};

} } // namespace BlueTusk::Detail

#endif // BlueTusk_Detail_RouterPass_INCLUDED
