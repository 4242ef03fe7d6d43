//
// FakeSession.h
//
// The unit tests' Session and SessionFactory: sessions of the fake servers of a FakeWorld, which says how
// each endpoint answers and counts what the sessions did. A session records the SQL it is sent, runs the
// pool's reset (ROLLBACK, DISCARD ALL, deferred or not), detects being used by two holders at once, and
// answers every statement with one row: its endpoint. No network.
//

#ifndef BlueTusk_Test_FakeSession_INCLUDED
#define BlueTusk_Test_FakeSession_INCLUDED

#include "FakeWorld.h"
#include "BlueTusk/Session.h"
#include <atomic>
#include <memory>
#include <string>

namespace BlueTusk {
namespace Test {

class FakeSession: public Session, public SessionControl
{
public:
	FakeSession(FakeWorld::Ptr world, const BlueTuskHostEndpoint& endpoint, int id);
	~FakeSession() override;

	int id() const { return _id; }

	bool beginUse();
		/// Marks the session as held; false (and FakeWorld::doubleUse counted) when someone else holds it.
	void endUse();

	void learnRole(ServerRole role) { _role = role; }
	void breakConnection() { _broken = true; }
	void beginTransaction() { _transaction = TransactionStatus::InTransaction; }
	void failNextReset() { _failReset = true; }
	bool wasClosed() const { return _closed; }

	SessionControl& control() override { return *this; }
	const BlueTuskHostEndpoint& endpoint() const override;
	std::string connectedAddress() const override;
	ServerRole role() const override;
	ServerRole probeRole(bool force) override;
		/// Unless the role is known (and not force): counts a probe and learns the endpoint's role; throws
		/// BlueTuskSessionBrokenException (the session then broken) when the endpoint's script fails.
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
	void setCommandTimeout(const Poco::Timespan& timeout) override { _commandTimeout = timeout.totalMicroseconds(); }
	Poco::Timespan commandTimeout() const override { return Poco::Timespan(_commandTimeout.load()); }
	std::string parameterStatus(const std::string& name) const override;
	Poco::Timestamp createdAt() const override;

private:
	QueryResult answer(const std::string& sql);

	FakeWorld::Ptr _world;
	BlueTuskHostEndpoint _endpoint;
	std::string _key;
	int _id;
	Poco::Timestamp _createdAt;
	std::atomic<ServerRole> _role{ServerRole::Unknown};
	std::atomic<Poco::Int64> _commandTimeout{0};
	std::atomic<bool> _inUse{false};
	std::atomic<bool> _broken{false};
	std::atomic<bool> _closed{false};
	std::atomic<bool> _failReset{false};
	std::atomic<bool> _resetPending{false};
	std::atomic<TransactionStatus> _transaction{TransactionStatus::Idle};
};


class FakeSessionFactory: public SessionFactory
	/// Opens FakeSessions of one FakeWorld. Thread-safe.
{
public:
	using Ptr = std::shared_ptr<FakeSessionFactory>;

	explicit FakeSessionFactory(FakeWorld::Ptr world = std::make_shared<FakeWorld>());

	const FakeWorld::Ptr& world() const { return _world; }

	Session::Ptr open(const BlueTuskHostEndpoint& endpoint, const ConnectionSettings& settings) override;
		/// After the endpoint's delay, a FakeSession with the next id, or the failure the world injects
		/// (refuseOpens, failNextOpens, openFailurePermille) or the endpoint's script says.
	Session::Ptr openCancellable(const BlueTuskHostEndpoint& endpoint, const ConnectionSettings& settings,
		const OpenCancellation& cancellation) override;

private:
	Session::Ptr openFake(const BlueTuskHostEndpoint& endpoint, const ConnectionSettings& settings,
		const OpenCancellation* cancellation);

	FakeWorld::Ptr _world;
};

} } // namespace BlueTusk::Test

#endif // BlueTusk_Test_FakeSession_INCLUDED
