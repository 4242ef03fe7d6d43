//
// FakeWorld.h
//
// The fake servers behind the unit tests' FakeSession: per endpoint what the server does (its role, how an
// open fails, how long it takes), failures injected into every open, and what the sessions saw (opens,
// connections, probes, live sessions, the SQL each session received). No network.
//

#ifndef BlueTusk_Test_FakeWorld_INCLUDED
#define BlueTusk_Test_FakeWorld_INCLUDED

#include "BlueTusk/Session.h"
#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace BlueTusk {
namespace Test {

struct FakeHost
	/// How one fake endpoint behaves.
{
	enum Failure
	{
		NONE,         /// the open succeeds after delayMs with role
		REFUSED,      /// BlueTuskTransportException, REFUSED, at once (after delayMs)
		BLACK_HOLE,   /// waits the whole Timeout, then BlueTuskTransportException TIMED_OUT
		EARLY_CLOSE,  /// BlueTuskTransportException, CLOSED ("server closed the connection unexpectedly")
		SQLSTATE,     /// BlueTuskServerException FATAL with sqlState / message (57P03, 53300, 28P01, 3D000)
		AUTH_SIGNATURE/// BlueTuskAuthenticationException (SCRAM server signature did not verify)
	};

	ServerRole role = ServerRole::Primary;
	Failure failure = NONE;
	std::string sqlState;
	std::string message;
	int delayMs = 0;

	static FakeHost primary(int delayMs = 0);
	static FakeHost primaryReadOnly(int delayMs = 0);
	static FakeHost standby(int delayMs = 0);
	static FakeHost refused();
	static FakeHost blackHole();
	static FakeHost earlyClose();
	static FakeHost startingUp();        /// 57P03 the database system is starting up
	static FakeHost tooManyConnections();/// 53300 sorry, too many clients already
	static FakeHost badPassword();       /// 28P01 password authentication failed for user "app"
	static FakeHost badSignature();
};


class FakeWorld
	/// What every FakeSession and FakeSessionFactory of a test share. Endpoints ("a:5432", display form) not
	/// scripted behave as FakeHost::primary() (or the role setRole(role) gave every endpoint). Thread-safe.
{
public:
	using Ptr = std::shared_ptr<FakeWorld>;

	// What the servers do.
	void script(const std::string& endpoint, const FakeHost& host);
	void setRole(const std::string& endpoint, ServerRole role);
		/// Changes the role the server plays now (promotion): forced probes of existing sessions see it.
	void setRole(ServerRole role);
		/// The same for every endpoint, also those not scripted or opened yet.
	ServerRole roleOf(const std::string& endpoint) const;

	// Knobs for every open and every session.
	std::atomic<int> openDelayMicroseconds{0}; /// added to every open's delay
	std::atomic<int> failNextOpens{0};         /// the next N opens throw BlueTuskTransportException
	std::atomic<int> openFailurePermille{0};   /// random open failures (per 1000)
	std::atomic<bool> refuseOpens{false};      /// every open throws BlueTuskServerException 53300 (too many)
	std::atomic<bool> deferResets{false};      /// sessions accept SessionControl::deferReset() (as ProtocolSession)
	std::atomic<bool> roleFollowsServer{false};
		/// role() gives the endpoint's role of the moment (a session told of every change at once, no
		/// probe needed); otherwise the role of the last probe, or of a targeted open (PostgreSQL 14+
		/// reports it at startup), ServerRole::Unknown before.

	// What happened, world-wide.
	std::atomic<int> opened{0};            /// sessions the factory created
	std::atomic<int> openFailures{0};      /// opens failed by failNextOpens / openFailurePermille
	std::atomic<int> refusals{0};          /// opens refused by refuseOpens
	std::atomic<int> cancelled{0};         /// opens abandoned through OpenCancellation
	std::atomic<int> opening{0};           /// opens in the factory right now
	std::atomic<int> peakOpening{0};       /// the most opens in the factory at once
	std::atomic<int> alive{0};             /// fake session objects not destroyed yet
	std::atomic<int> closed{0};            /// sessions on which close() was called (first call)
	std::atomic<int> destroyedUnclosed{0}; /// destroyed without close(): a pool leaked a session
	std::atomic<int> doubleUse{0};         /// a session was in two holders' hands at once

	// What happened, per endpoint.
	int opens(const std::string& endpoint) const;      /// open attempts made to endpoint
	int connections(const std::string& endpoint) const;/// successful opens
	int probes(const std::string& endpoint) const;     /// probe round trips (forced or first)
	int live(const std::string& endpoint) const;       /// sessions open now (neither closed nor destroyed)
	int totalOpens() const;
	int totalLive() const;

	std::vector<std::string> sqlOf(int sessionId) const;
		/// Every statement session sessionId received (reset included), in order.

	// For FakeSession and FakeSessionFactory.
	FakeHost attempt(const std::string& endpoint);  /// counts an open attempt; the endpoint's script
	ServerRole connect(const std::string& endpoint);/// counts a session opened; the endpoint's role
	void disconnect(const std::string& endpoint);   /// counts a session gone
	FakeHost probe(const std::string& endpoint);    /// counts a probe; the endpoint's script
	bool takeInjectedFailure();                      /// true when failNextOpens or openFailurePermille strikes
	int nextSessionId();
	void record(int sessionId, const std::string& sql);

private:
	struct Host
	{
		FakeHost script;
		int opens = 0;
		int connections = 0;
		int probes = 0;
		int live = 0;
	};

	Host& host(const std::string& endpoint);
	int count(const std::string& endpoint, int Host::*counter) const;

	mutable std::mutex _mutex;
	FakeHost _everyHost;
	std::map<std::string, Host> _hosts;
	std::map<int, std::vector<std::string>> _sql;
	int _nextSessionId = 1;
};

} } // namespace BlueTusk::Test

#endif // BlueTusk_Test_FakeWorld_INCLUDED
