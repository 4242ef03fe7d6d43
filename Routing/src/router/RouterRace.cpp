//
// RouterRace.cpp
//
// Library: BlueTusk/Routing
//
// A pass's parallel race (Host Order=parallel): the attempts of one tier run at once on their own threads,
// paced by the plan's staggers; the first acceptable session wins and the others are cancelled or released
// (doc/routing.md).
//

#include "RouterPass.h"
#include "Freshness.h"
#include "AttemptFailure.h"
#include "BlueTusk/StartupGate.h"
#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>

namespace BlueTusk {
namespace Detail {

void Router::race(std::vector<Slot*>& slots, PassState& state)
{
	state.raced = true;
	struct Attempt
	{
		Slot* slot = nullptr;
		OpenCancellation cancellation;
		PoolEntryPtr entry;
		ServerRole role = ServerRole::Unknown;
		std::unique_ptr<Poco::Exception> error;
		double ms = 0;
		HostAttempt record;
		bool logged = false;

		~Attempt()
		{
			// A session still held here was never classified (the pass ended by an exception, such as a
			// site target policy's): back to its pool, so that no lease is lost.
			if (!entry) return;
			EndpointPool* pool = entry->pool;
			pool->release(std::move(entry));
		}
	};

	std::vector<std::unique_ptr<Attempt>> attempts;
	for (Slot* slot: slots)
	{
		PoolShortage shortage = PoolShortage::None;
		if (!slot->pool->tryReserve(shortage))
		{
			if (shortage == PoolShortage::Draining)
			{
				auto attempt = std::make_unique<Attempt>();
				attempt->slot = slot;
				attempt->record.endpoint = slot->endpoint;
				attempt->record.outcome = HostAttempt::FAILED;
				attempt->record.detail = "draining";
				attempt->logged = true;
				attempts.push_back(std::move(attempt));
			}
			else state.addShortage(*slot, shortage);
			continue;
		}
		auto attempt = std::make_unique<Attempt>();
		attempt->slot = slot;
		attempts.push_back(std::move(attempt));
	}

	std::mutex mutex;
	std::condition_variable finished;
	std::deque<std::size_t> done;
	std::vector<std::thread> threads;
	const bool needsRole = _needsRole;
	FreshnessRule* const freshness = _request.freshness;

	// Every TCP connect at once; the startups that follow are paced by the plan's stagger (StartupGate.h).
	StartupGate gate(_startupStagger, _connectStagger);
	for (auto& attempt: attempts)
	{
		attempt->cancellation.setStartupGate(&gate);
		if (!attempt->logged) gate.enroll(attempt->cancellation);   // plan order
	}

	auto cancelAll = [&attempts, &gate]()
	{
		for (auto& attempt: attempts) attempt->cancellation.cancel();
		gate.close();
	};

	struct Joiner
	{
		std::vector<std::thread>& threads;
		std::function<void()> cancel;
		~Joiner()
		{
			if (std::any_of(threads.begin(), threads.end(), [](std::thread& t) { return t.joinable(); })) cancel();
			for (auto& thread: threads)
			{
				if (thread.joinable()) thread.join();
			}
		}
	} joiner{threads, cancelAll};

	std::size_t started = 0;
	for (std::size_t i = 0; i < attempts.size(); ++i)
	{
		Attempt* attempt = attempts[i].get();
		if (attempt->logged) continue;
		try
		{
			threads.emplace_back([attempt, i, needsRole, freshness, &mutex, &finished, &done]()
			{
				Poco::Clock start;
				try
				{
					attempt->entry = attempt->slot->pool->openReserved(attempt->cancellation);
					if (needsRole) attempt->role = freshness ? freshness->probe(*attempt->entry->session) : attempt->entry->session->control().probeRole(false);
				}
				catch (Poco::Exception& exc)
				{
					attempt->error.reset(exc.clone());
				}
				catch (std::exception& exc)
				{
					attempt->error.reset(new BlueTuskException(exc.what()));
				}
				if (attempt->error && attempt->entry)
				{
					EndpointPool* pool = attempt->entry->pool;
					pool->release(std::move(attempt->entry), true);
				}
				attempt->ms = millisecondsSince(start);
				std::lock_guard<std::mutex> lock(mutex);
				done.push_back(i);
				finished.notify_all();
			});
			++started;
		}
		catch (std::system_error& exc)
		{
			attempt->slot->pool->cancelReservation();
			attempt->record.endpoint = attempt->slot->endpoint;
			attempt->record.outcome = HostAttempt::FAILED;
			attempt->record.detail = std::string("could not start a thread: ") + exc.what();
			attempt->logged = true;
		}
	}

	for (std::size_t handled = 0; handled < started; ++handled)
	{
		std::size_t index;
		{
			std::unique_lock<std::mutex> lock(mutex);
			finished.wait(lock, [&done] { return !done.empty(); });
			index = done.front();
			done.pop_front();
		}
		Attempt& attempt = *attempts[index];
		attempt.logged = true;
		if (attempt.error)
		{
			onFailure(*attempt.slot, *attempt.error, attempt.ms, attempt.cancellation.isCancelled(), state, attempt.record);
			if (state.authFailure && !state.winner) cancelAll();
		}
		else
		{
			bool hadWinner = static_cast<bool>(state.winner);
			onSession(*attempt.slot, std::move(attempt.entry), attempt.role, false, attempt.ms, state, attempt.record);
			if (!hadWinner && state.winner) cancelAll();
			else gate.leave(attempt.cancellation);   // classified and the race goes on: the next may start
		}
	}
	for (auto& thread: threads) thread.join();

	// The log lists the raced endpoints in plan order, not in order of completion.
	for (auto& attempt: attempts)
	{
		if (attempt->logged) state.record(attempt->record);
	}
}

} } // namespace BlueTusk::Detail
