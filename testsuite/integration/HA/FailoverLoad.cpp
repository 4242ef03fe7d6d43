//
// FailoverLoad.cpp
//

#include "FailoverLoad.h"
#include "HaCluster.h"
#include "BlueTusk/BlueTuskConnection.h"
#include "Poco/Exception.h"
#include <chrono>

namespace BlueTusk {
namespace Test {

namespace {

const std::size_t maxFailuresKept = 20;


void pause(int milliseconds)
{
	std::this_thread::sleep_for(std::chrono::milliseconds(milliseconds));
}


bool inRecovery(BlueTuskConnection& connection)
{
	return connection.executeSimple("SELECT pg_is_in_recovery()").front().rows.at(0).at(0).value() == "t";
}

} // namespace


std::int64_t nowMicros()
{
	return std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now().time_since_epoch()).count();
}


FailoverLoad::FailoverLoad(BlueTuskDataSource::Ptr dataSource, int writers, int readers, const std::string& run):
	_dataSource(dataSource),
	_writers(writers),
	_readers(readers),
	_run(run)
{
}


FailoverLoad::~FailoverLoad()
{
	stop();
}


void FailoverLoad::start()
{
	_stop = false;
	for (int i = 0; i < _writers; ++i) _threads.emplace_back([this, i] { writer(i); });
	for (int i = 0; i < _readers; ++i) _threads.emplace_back([this] { reader(); });
}


void FailoverLoad::stop()
{
	_stop = true;
	for (auto& thread: _threads) thread.join();
	_threads.clear();
}


void FailoverLoad::note(const std::string& text)
{
	std::lock_guard<std::mutex> lock(_mutex);
	if (_failures.size() < maxFailuresKept) _failures.push_back(text);
}


void FailoverLoad::writer(int index)
{
	for (long seq = 1; !_stop; ++seq)
	{
		BlueTuskConnection lease;
		try
		{
			lease = _dataSource->open(TargetSessionAttributes::ReadWrite);
		}
		catch (Poco::Exception& exc)
		{
			++checkoutFailures;
			note("read-write checkout failed: " + exc.displayText());
			pause(50);
			continue;
		}
		const std::string host = lease.connectedEndpoint().host();
		try
		{
			if (inRecovery(lease))
			{
				++standbyWriteSessions;
				note("read-write checkout handed a standby: " + host);
			}
			else
			{
				lease.executeSimple("INSERT INTO bt_ha_writes(run, writer, seq, node) VALUES ('" + _run + "', " +
					std::to_string(index) + ", " + std::to_string(seq) + ", '" + host + "')");
				const std::int64_t at = nowMicros();
				++writes;
				std::lock_guard<std::mutex> lock(_mutex);
				_written.push_back(Write{at, host});
			}
		}
		catch (Poco::Exception& exc)
		{
			++writeErrors;
			note("write on " + host + " failed: " + exc.displayText());
		}
		lease.close();
		pause(10);
	}
}


void FailoverLoad::reader()
{
	while (!_stop)
	{
		BlueTuskConnection lease;
		try
		{
			lease = _dataSource->open(TargetSessionAttributes::PreferStandby);
		}
		catch (Poco::Exception& exc)
		{
			++checkoutFailures;
			note("prefer-standby checkout failed: " + exc.displayText());
			pause(50);
			continue;
		}
		try
		{
			if (inRecovery(lease)) ++readsOnStandby;
			++reads;
		}
		catch (Poco::Exception&)
		{
			++readErrors;
		}
		lease.close();
		pause(10);
	}
}


std::int64_t FailoverLoad::firstWriteOn(const std::string& host, std::int64_t after) const
{
	std::lock_guard<std::mutex> lock(_mutex);
	std::int64_t first = 0;
	for (const Write& write: _written)
	{
		if (write.host == host && write.at >= after && (first == 0 || write.at < first)) first = write.at;
	}
	return first;
}


long FailoverLoad::writesOn(const std::string& host, std::int64_t after) const
{
	std::lock_guard<std::mutex> lock(_mutex);
	long count = 0;
	for (const Write& write: _written)
	{
		if (write.host == host && write.at >= after) ++count;
	}
	return count;
}


std::string FailoverLoad::failures() const
{
	std::lock_guard<std::mutex> lock(_mutex);
	std::string text;
	for (const auto& failure: _failures) text += "    " + failure + "\n";
	return text;
}


PromotionWatch::PromotionWatch(const HaCluster& cluster, const std::vector<int>& nodes, int pollMs):
	_cluster(cluster),
	_pollMs(pollMs)
{
	for (int node: nodes) _threads.emplace_back([this, node] { watch(node); });
}


PromotionWatch::~PromotionWatch()
{
	_stop = true;
	for (auto& thread: _threads) thread.join();
}


int PromotionWatch::promoted() const
{
	std::lock_guard<std::mutex> lock(_mutex);
	return _promoted;
}


std::int64_t PromotionWatch::promotedAt() const
{
	std::lock_guard<std::mutex> lock(_mutex);
	return _promotedAt;
}


std::int64_t PromotionWatch::leftRecoveryAt() const
{
	std::lock_guard<std::mutex> lock(_mutex);
	return _leftRecoveryAt;
}


void PromotionWatch::watch(int node)
{
	const std::string text = _cluster.nodeConnectionString(node, "Timeout=1;SSL Mode=disable");
	BlueTuskConnection connection;
	std::int64_t leftRecovery = 0;
	while (!_stop)
	{
		try
		{
			if (!connection.isOpen()) connection = BlueTuskConnection::open(text, _connector);
			if (!inRecovery(connection))
			{
				if (leftRecovery == 0) leftRecovery = nowMicros();
				if (_cluster.holdsCommitsAfterPromotion)
				{
					// pg_auto_failover keeps the promoted member read-only (default_transaction_read_only) until
					// it reaches wait_primary; then a commit with a transaction id returns once synchronous
					// replication lets it.
					if (connection.executeSimple("SHOW transaction_read_only").front().rows.at(0).at(0).value() != "off")
					{
						pause(_pollMs);
						continue;
					}
					connection.executeSimple("SELECT txid_current()");
				}
				const std::int64_t at = nowMicros();
				std::lock_guard<std::mutex> lock(_mutex);
				if (_promoted == 0)
				{
					_promoted = node;
					_promotedAt = at;
					_leftRecoveryAt = leftRecovery;
				}
				return;
			}
		}
		catch (Poco::Exception&)
		{
			connection.close(); // reopened on the next poll
		}
		pause(_pollMs);
	}
}

} } // namespace BlueTusk::Test
