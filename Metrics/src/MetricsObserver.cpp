//
// MetricsObserver.cpp
//
// Library: BlueTusk/Metrics
//
// Layout of a shard: per endpoint STRIDE words: three histograms (DURATION_BUCKETS + 1 counts, then the
// sum in nanoseconds), the attempts by outcome, the role changes by role, the split-brain refusals; after
// the endpoints one word of failover waits. Only the owning thread writes a shard, so an increment is a
// relaxed load and store (no lock prefix), and the readers' relaxed loads see whole words.
//

#include "BlueTusk/Metrics/MetricsObserver.h"
#include <algorithm>
#include <chrono>
#include <cmath>
#include <time.h>

namespace BlueTusk {
namespace Metrics {

namespace {

constexpr std::size_t HISTOGRAM_WORDS = DURATION_BUCKETS + 2;
constexpr std::size_t CREATE = 0, WAIT = 1, USE = 2;
constexpr std::size_t ATTEMPTS_AT = 3 * HISTOGRAM_WORDS;
constexpr std::size_t ROLES_AT = ATTEMPTS_AT + MetricsObserver::OUTCOMES;
constexpr std::size_t SPLIT_BRAIN_AT = ROLES_AT + MetricsObserver::ROLES;
constexpr std::size_t STRIDE = SPLIT_BRAIN_AT + 1;

std::atomic<std::uint64_t> nextId{1};

struct ThreadCache
{
	std::uint64_t id;
	void* shard;
};

thread_local ThreadCache threadCache __attribute__((tls_model("initial-exec"))) = {0, nullptr};


std::int64_t monotonicNanoseconds()
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return static_cast<std::int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec + 1;   // + 1: never 0
}


std::atomic<std::int64_t> tickNow{0};


class Ticker
	/// The metrics clock: one thread per process that stores CLOCK_MONOTONIC into tickNow every
	/// millisecond, so that timing a lease costs a load instead of two clock_gettime calls (together more
	/// than 10 % of an idle checkout, doc/metrics.md). Runs from the first MetricsObserver to the exit.
{
public:
	static void start()
	{
		static Ticker ticker;
	}

	~Ticker()
	{
		_stop.store(true);
		if (_thread.joinable()) _thread.join();
	}

private:
	Ticker()
	{
		tickNow.store(monotonicNanoseconds(), std::memory_order_relaxed);
		_thread = std::thread([this]()
		{
			while (!_stop.load(std::memory_order_relaxed))
			{
				std::this_thread::sleep_for(std::chrono::milliseconds(1));
				tickNow.store(monotonicNanoseconds(), std::memory_order_relaxed);
			}
		});
	}

	std::atomic<bool> _stop{false};
	std::thread _thread;
};


inline void bump(std::atomic<std::uint64_t>& word, std::uint64_t by)
{
	word.store(word.load(std::memory_order_relaxed) + by, std::memory_order_relaxed);
}

} // namespace


struct MetricsObserver::Shard
{
	std::unique_ptr<std::atomic<std::uint64_t>[]> words;
	std::size_t size;

	explicit Shard(std::size_t endpoints):
		words(new std::atomic<std::uint64_t>[endpoints * STRIDE + 1]),
		size(endpoints * STRIDE + 1)
	{
		for (std::size_t i = 0; i < size; ++i) words[i].store(0, std::memory_order_relaxed);
	}
};


std::uint64_t MetricsObserver::Histogram::count() const
{
	std::uint64_t total = 0;
	for (auto c: counts) total += c;
	return total;
}


MetricsObserver::MetricsObserver(const std::string& poolName, const std::vector<BlueTuskHostEndpoint>& endpoints):
	_id(nextId.fetch_add(1)),
	_poolName(poolName)
{
	for (const auto& endpoint: endpoints)
	{
		if (std::find(_endpoints.begin(), _endpoints.end(), endpoint) == _endpoints.end()) _endpoints.push_back(endpoint);
	}
	_addresses.reset(new std::atomic<const void*>[_endpoints.size()]);
	for (std::size_t i = 0; i < _endpoints.size(); ++i) _addresses[i].store(nullptr);
	Ticker::start();
	setTicks(&tickNow);
}


MetricsObserver::~MetricsObserver()
{
}


const std::string& MetricsObserver::poolName() const
{
	return _poolName;
}


inline MetricsObserver::Shard& MetricsObserver::shard()
{
	if (threadCache.id == _id) return *static_cast<Shard*>(threadCache.shard);
	return shardSlow();
}


MetricsObserver::Shard& MetricsObserver::shardSlow()
{
	std::lock_guard<std::mutex> lock(_mutex);
	std::unique_ptr<Shard>& mine = _shards[std::this_thread::get_id()];
	if (!mine) mine.reset(new Shard(_endpoints.size()));
	threadCache.id = _id;
	threadCache.shard = mine.get();
	return *mine;
}


int MetricsObserver::indexByValue(const BlueTuskHostEndpoint& endpoint, bool poolOwned)
{
	for (std::size_t i = 0; i < _endpoints.size(); ++i)
	{
		if (_endpoints[i] == endpoint)
		{
			// A pool's own endpoint object lives as long as the pool: its address identifies it from now on.
			if (poolOwned) _addresses[i].store(&endpoint, std::memory_order_relaxed);
			return static_cast<int>(i);
		}
	}
	return -1;
}


inline int MetricsObserver::indexOf(const BlueTuskHostEndpoint& endpoint, bool poolOwned)
{
	const std::size_t n = _endpoints.size();
	for (std::size_t i = 0; i < n; ++i)
	{
		if (_addresses[i].load(std::memory_order_relaxed) == &endpoint) return static_cast<int>(i);
	}
	return indexByValue(endpoint, poolOwned);
}


inline __attribute__((always_inline)) void MetricsObserver::observe(std::size_t histogram, int index, std::int64_t nanoseconds)
{
	// durationBuckets() in nanoseconds: integer compares, most leases end in the first bucket.
	static constexpr std::int64_t BOUNDS[DURATION_BUCKETS] = {1000000, 5000000, 10000000, 50000000, 100000000,
		500000000, 1000000000, 5000000000, 10000000000};
	if (index < 0) return;
	if (nanoseconds < 0) nanoseconds = 0;
	std::size_t bucket = 0;
	while (bucket < DURATION_BUCKETS && nanoseconds > BOUNDS[bucket]) ++bucket;
	std::atomic<std::uint64_t>* words = &shard().words[static_cast<std::size_t>(index) * STRIDE + histogram * HISTOGRAM_WORDS];
	bump(words[bucket], 1);
	if (nanoseconds > 0) bump(words[DURATION_BUCKETS + 1], static_cast<std::uint64_t>(nanoseconds));
}


std::int64_t MetricsObserver::clock()
{
	return tickNow.load(std::memory_order_relaxed);
}


void MetricsObserver::sessionCreated(const BlueTuskHostEndpoint& endpoint, double seconds)
{
	observe(CREATE, indexOf(endpoint, true), seconds > 0 ? static_cast<std::int64_t>(std::llround(seconds * 1e9)) : 0);
}


std::int64_t MetricsObserver::checkoutWaited(const BlueTuskHostEndpoint& endpoint, std::int64_t started)
{
	const std::int64_t now = clock();
	observe(WAIT, indexOf(endpoint, true), now - started);
	return now;
}


void MetricsObserver::sessionUsed(const BlueTuskHostEndpoint& endpoint, std::int64_t leasedAt, bool idleCheckout)
{
	const int index = indexOf(endpoint, true);
	if (index < 0) return;
	std::int64_t nanoseconds = tickNow.load(std::memory_order_relaxed) - leasedAt;
	if (nanoseconds < 0) nanoseconds = 0;
	std::atomic<std::uint64_t>* words = &shard().words[static_cast<std::size_t>(index) * STRIDE];
	if (nanoseconds <= 1000000)
	{
		bump(words[USE * HISTOGRAM_WORDS], 1);   // the first bucket, the common case of a short lease
		if (nanoseconds > 0) bump(words[USE * HISTOGRAM_WORDS + DURATION_BUCKETS + 1], static_cast<std::uint64_t>(nanoseconds));
	}
	else
	{
		observe(USE, index, nanoseconds);
	}
	if (idleCheckout)
	{
		bump(words[WAIT * HISTOGRAM_WORDS], 1);   // its wait of 0: the first bucket, nothing to the sum
		bump(words[ATTEMPTS_AT + 0], 1);          // HostAttempt::ACCEPTED
	}
}


void MetricsObserver::roleChanged(const BlueTuskHostEndpoint& endpoint, ServerRole, ServerRole to)
{
	const int index = indexOf(endpoint, true);
	const std::size_t role = static_cast<std::size_t>(to);
	if (index < 0 || role >= ROLES) return;
	bump(shard().words[static_cast<std::size_t>(index) * STRIDE + ROLES_AT + role], 1);
}


void MetricsObserver::routeAttempt(const BlueTuskHostEndpoint& endpoint, int outcome)
{
	const int index = indexOf(endpoint, false);
	if (index < 0 || outcome < 0 || static_cast<std::size_t>(outcome) >= OUTCOMES) return;
	bump(shard().words[static_cast<std::size_t>(index) * STRIDE + ATTEMPTS_AT + static_cast<std::size_t>(outcome)], 1);
}


void MetricsObserver::failoverWaited(int waits)
{
	if (waits <= 0) return;
	bump(shard().words[_endpoints.size() * STRIDE], static_cast<std::uint64_t>(waits));
}


void MetricsObserver::splitBrainRefused(const BlueTuskHostEndpoint& endpoint)
{
	const int index = indexOf(endpoint, false);
	if (index < 0) return;
	bump(shard().words[static_cast<std::size_t>(index) * STRIDE + SPLIT_BRAIN_AT], 1);
}


MetricsObserver::Snapshot MetricsObserver::snapshot() const
{
	const std::size_t n = _endpoints.size();
	std::vector<std::uint64_t> sums(n * STRIDE + 1, 0);
	{
		std::lock_guard<std::mutex> lock(_mutex);
		for (const auto& item: _shards)
		{
			for (std::size_t i = 0; i < sums.size(); ++i) sums[i] += item.second->words[i].load(std::memory_order_relaxed);
		}
	}
	Snapshot result;
	result.failoverWaits = sums[n * STRIDE];
	for (std::size_t e = 0; e < n; ++e)
	{
		const std::uint64_t* w = &sums[e * STRIDE];
		EndpointSnapshot item;
		item.endpoint = _endpoints[e];
		Histogram* histograms[3] = {&item.createTime, &item.waitTime, &item.useTime};
		for (std::size_t h = 0; h < 3; ++h)
		{
			for (std::size_t b = 0; b <= DURATION_BUCKETS; ++b) histograms[h]->counts[b] = w[h * HISTOGRAM_WORDS + b];
			histograms[h]->sum = static_cast<double>(w[h * HISTOGRAM_WORDS + DURATION_BUCKETS + 1]) / 1e9;
		}
		for (std::size_t o = 0; o < OUTCOMES; ++o) item.attempts[o] = w[ATTEMPTS_AT + o];
		for (std::size_t r = 0; r < ROLES; ++r) item.roleChanges[r] = w[ROLES_AT + r];
		item.splitBrainRefusals = w[SPLIT_BRAIN_AT];
		result.endpoints.push_back(item);
	}
	return result;
}

} } // namespace BlueTusk::Metrics
