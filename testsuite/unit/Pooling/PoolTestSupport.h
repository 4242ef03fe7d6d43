//
// PoolTestSupport.h
//
// Fakes for the Pooling unit tests: a Session that records the SQL it is sent and detects being used by two
// holders at once, a SessionFactory with failure injection, and a PoolClock the test moves by hand.
//

#ifndef BlueTusk_PoolTestSupport_INCLUDED
#define BlueTusk_PoolTestSupport_INCLUDED

#include "BlueTusk/PoolManager.h"
#include "BlueTusk/Session.h"
#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace BlueTusk {
namespace Test {

struct FakeWorld
	/// What every fake session and the fake factory share; all counters are thread-safe.
{
	std::atomic<int> opened{0};            /// sessions the factory created
	std::atomic<int> openFailures{0};      /// opens the factory failed on purpose
	std::atomic<int> live{0};              /// fake session objects alive
	std::atomic<int> closed{0};            /// sessions on which close() was called (first call)
	std::atomic<int> destroyedUnclosed{0}; /// destroyed without close(): a pool leaked a session
	std::atomic<int> doubleUse{0};         /// a session was in two holders' hands at once
	std::atomic<int> openDelayMicroseconds{0};
	std::atomic<int> failNextOpens{0};     /// the next N opens throw BlueTuskTransportException
	std::atomic<int> openFailurePermille{0}; /// random open failures (per 1000)
	std::atomic<bool> refuseOpens{false};  /// every open throws BlueTuskServerException 53300 (too many)
	std::atomic<int> refusals{0};          /// opens refused so
	std::atomic<int> opening{0};           /// opens in the factory right now
	std::atomic<int> peakOpening{0};       /// the most opens in the factory at once
	std::atomic<ServerRole> role{ServerRole::Primary}; /// what every session reports as its role
	std::atomic<bool> deferResets{false};  /// sessions accept Session::deferReset() (as ProtocolSession)

	void record(int sessionId, const std::string& sql);
	std::vector<std::string> sqlOf(int sessionId) const;
		/// Every statement session sessionId received (reset included), in order.

private:
	mutable std::mutex _mutex;
	std::map<int, std::vector<std::string>> _sql;
};


class FakeSession: public Session
{
public:
	FakeSession(std::shared_ptr<FakeWorld> world, const BlueTuskHostEndpoint& endpoint, int id);
	~FakeSession() override;

	int id() const { return _id; }

	bool beginUse();
		/// Marks the session as held; false (and doubleUse counted) when someone else holds it.
	void endUse();

	void breakConnection() { _broken = true; }
	void beginTransaction() { _transaction = TransactionStatus::InTransaction; }
	void failNextReset() { _failReset = true; }
	bool wasClosed() const { return _closed; }

	const BlueTuskHostEndpoint& endpoint() const override;
	std::string connectedAddress() const override;
	ServerRole role() const override;
	ServerRole probeRole(bool force) override;
	bool isBroken() const override;
	TransactionStatus transactionStatus() const override;
	void reset(bool discardAll) override;
	bool deferReset() override;
		/// With FakeWorld::deferResets: records nothing now; "DISCARD ALL" is recorded in front of the
		/// next statement (as ProtocolSession sends it).
	bool isResetPending() const override;
	void close() override;
	std::vector<QueryResult> executeSimple(const std::string& sql) override;
	QueryResult execute(const std::string& sql, const std::vector<FieldValue>& parameters) override;
	void cancel() override;
	std::string parameterStatus(const std::string& name) const override;
	Poco::Timestamp createdAt() const override;

private:
	std::shared_ptr<FakeWorld> _world;
	BlueTuskHostEndpoint _endpoint;
	int _id;
	Poco::Timestamp _createdAt;
	std::atomic<bool> _inUse{false};
	std::atomic<bool> _broken{false};
	std::atomic<bool> _closed{false};
	std::atomic<bool> _failReset{false};
	std::atomic<bool> _resetPending{false};
	std::atomic<TransactionStatus> _transaction{TransactionStatus::Idle};
};


class FakeSessionFactory: public SessionFactory
{
public:
	explicit FakeSessionFactory(std::shared_ptr<FakeWorld> world);

	Session::Ptr open(const BlueTuskHostEndpoint& endpoint, const ConnectionSettings& settings) override;
		/// A FakeSession with the next id, or BlueTuskTransportException when a failure is injected.

private:
	std::shared_ptr<FakeWorld> _world;
	std::atomic<int> _nextId{1};
};


class ManualClock: public PoolClock
	/// A clock that only moves when the test says so. Thread-safe.
{
public:
	ManualClock();
	Poco::Timestamp now() const override;
	void advance(const Poco::Timespan& span);

private:
	std::atomic<Poco::Timestamp::TimeVal> _now;
};


FakeSession& fake(const PoolEntryPtr& entry);
	/// The FakeSession inside a pool entry.

ConnectionSettings poolSettings(int minSize, int maxSize);
	/// Settings with the given pool sizes; Checkout Timeout 5 s, everything else default.

BlueTuskHostEndpoint endpointNo(int n);
	/// 127.0.0.<n>:5432.

} } // namespace BlueTusk::Test

#endif // BlueTusk_PoolTestSupport_INCLUDED
