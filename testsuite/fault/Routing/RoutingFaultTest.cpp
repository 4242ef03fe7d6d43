//
// RoutingFaultTest.cpp
//
// the table-driven fault test: the seven targets over host lists that mix the project's fake
// backends on 127.0.0.x (primary, standby, read-only primary, 57P03, 53300, 28P01, black hole, early close,
// refused port), for sequential and parallel host order, through the real ProtocolSessionFactory. Checks the
// endpoint chosen, the connections each peer saw, the failure text, the time a parallel open takes with a
// black-holed first host, and that no thread or connection is left behind.
//

#include "BlueTusk/BlueTuskConnection.h"
#include "BlueTusk/BlueTuskDataSource.h"
#include "BlueTusk/BlueTuskException.h"
#include "BlueTusk/RoutingContext.h"
#include "Peers.h"
#include "Poco/AutoPtr.h"
#include "Poco/Clock.h"
#include "ThreadCount.h"
#include "Poco/Thread.h"
#include "Poco/Util/MapConfiguration.h"
#include <cppunit/extensions/HelperMacros.h>
#include <functional>
#include <map>
#include <memory>
#include <sstream>

using namespace BlueTusk;
using namespace BlueTusk::Test;

namespace {

const char* const PASSWORD = "fault-secret-7Q";


struct Peers
	/// One peer per letter:
	///   P primary            127.0.0.1     S standby             127.0.0.2
	///   R read-only primary  127.0.0.3     U 57P03 starting up   127.0.0.4
	///   T 53300 too many     127.0.0.5     A 28P01 bad password  127.0.0.6
	///   C early close        127.0.0.8     H black hole          127.0.0.7
	///   X refused port       127.0.0.9     D primary answering after 300 ms  127.0.0.10
{
	std::map<char, std::unique_ptr<FakeBackend>> backends;
	BlackHoleListener hole{"127.0.0.7"};
	RefusedPort refused{"127.0.0.9"};

	Peers()
	{
		backends['P'].reset(new FakeBackend(BackendScript::primary(), "127.0.0.1"));
		backends['S'].reset(new FakeBackend(BackendScript::standby(), "127.0.0.2"));
		backends['R'].reset(new FakeBackend(BackendScript::readOnlyPrimary(), "127.0.0.3"));
		backends['U'].reset(new FakeBackend(BackendScript::startingUp(), "127.0.0.4"));
		backends['T'].reset(new FakeBackend(BackendScript::tooManyClients(), "127.0.0.5"));
		backends['A'].reset(new FakeBackend(BackendScript::passwordFailure(), "127.0.0.6"));
		backends['C'].reset(new FakeBackend(BackendScript::closeAfterStartup(), "127.0.0.8"));
		backends['D'].reset(new FakeBackend(BackendScript::primary().delayStartup(300), "127.0.0.10"));
	}

	std::string hostAndPort(char letter) const
	{
		if (letter == 'H') return hole.hostAndPort();
		if (letter == 'X') return refused.hostAndPort();
		return backends.at(letter)->hostAndPort();
	}

	std::string hosts(const std::string& letters) const
	{
		std::string list;
		for (char letter: letters)
		{
			if (!list.empty()) list += ",";
			list += hostAndPort(letter);
		}
		return list;
	}

	char letterOf(const BlueTuskHostEndpoint& endpoint) const
	{
		for (const auto& backend: backends)
		{
			if (backend.second->endpoint() == endpoint) return backend.first;
		}
		if (hole.endpoint() == endpoint) return 'H';
		if (refused.endpoint() == endpoint) return 'X';
		return '?';
	}

	int startups(char letter) const
	{
		return backends.at(letter)->startupMessages();
	}

	void resetCounters()
	{
		for (auto& backend: backends) backend.second->resetCounters();
	}

	bool idle(const Poco::Timespan& timeout) const
		/// Waits until no peer has an open connection.
	{
		for (const auto& backend: backends)
		{
			if (!backend.second->waitForActiveConnections(0, timeout)) return false;
		}
		return true;
	}

	std::string connectionString(const std::string& letters, const std::string& extra) const
	{
		return "Host=" + hosts(letters) + ";Username=app;Password=" + PASSWORD + ";Database=app;SSL Mode=disable;Timeout=1;" + extra;
	}
};


struct Case
{
	const char* target;
	const char* hosts;     /// peer letters in host-list order
	char chosen;           /// sequential: the peer chosen, '!' for BlueTuskNoAcceptableHostException, '#' for authentication
	const char* counts;    /// sequential: StartupMessages per peer letter, "P1S0"
	const char* raced;     /// parallel: the peers that may win the race ("!" none; "" row not raced)
};


const Case CASES[] = {
	{"any",            "PS",    'P', "P1S0",   "PS"},
	{"any",            "UCP",   'P', "U1C1P1", "P"},
	{"any",            "XTR",   'R', "T1R1",   "R"},
	{"primary",        "SP",    'P', "S1P1",   "P"},
	{"primary",        "SUR",   'R', "S1U1R1", "R"},
	{"primary",        "TSP",   'P', "T1S1P1", "P"},
	{"standby",        "PRS",   'S', "P1R1S1", "S"},
	{"standby",        "PRU",   '!', "P1R1U1", "!"},
	{"prefer-primary", "SUX",   'S', "S1U1",   "S"},
	{"prefer-primary", "SRP",   'R', "S1R1P0", "RP"},
	{"prefer-standby", "PTS",   'S', "P1T1S1", "S"},
	{"prefer-standby", "RPC",   'R', "R1P1C1", "RP"},
	{"read-write",     "RSP",   'P', "R1S1P1", "P"},
	{"read-write",     "RSX",   '!', "R1S1",   "!"},
	{"read-only",      "PR",    'R', "P1R1",   "R"},
	{"read-only",      "PCS",   'S', "P1C1S1", "S"},
	{"any",            "UAP",   '#', "U1A1P0", ""},  // racing auth against an Accept: see testParallelAuthenticationStops
	{"prefer-standby", "PAS",   '#', "P1A1S0", ""},
};

} // namespace


class RoutingFaultTest: public CppUnit::TestFixture
{
	CPPUNIT_TEST_SUITE(RoutingFaultTest);
	CPPUNIT_TEST(testTableSequential);
	CPPUNIT_TEST(testTableParallel);
	CPPUNIT_TEST(testFailureText);
	CPPUNIT_TEST(testParallelBlackHoleFirst);
	CPPUNIT_TEST(testParallelAuthenticationStops);
	CPPUNIT_TEST(testParallelPacesStartups);
	CPPUNIT_TEST(testParallelZeroStaggerStartsEveryone);
	CPPUNIT_TEST(testParallelStaggerBoundsASlowStartup);
	CPPUNIT_TEST(testParallelRejectLetsTheNextStart);
	CPPUNIT_TEST(testParallelLoserIsNoConnectFailure);
	CPPUNIT_TEST(testParallelFallbackHeld);
	CPPUNIT_TEST(testSequentialBlackHoleWaitsTimeout);
	CPPUNIT_TEST(testSecondOpenSkipsDeadHost);
	CPPUNIT_TEST(testNoThreadOrConnectionLeftBehind);
	CPPUNIT_TEST_SUITE_END();

public:
	void setUp()
	{
		_peers.reset(new Peers);
	}

	void tearDown()
	{
		_peers.reset();
	}

	void runTable(const std::string& order)
	{
		const bool parallel = order == "parallel";
		for (const Case& c: CASES)
		{
			const std::string raced(c.raced);
			if (parallel && raced.empty()) continue;
			_peers->resetCounters();
			RoutingContext connector; // fresh: nothing learned from earlier rows
			std::string where = std::string(c.target) + " over " + c.hosts + " (" + order + ")";
			std::string cs = _peers->connectionString(c.hosts, "Host Order=" + order + ";Target Session Attributes=" + c.target);
			char chosen = '?';
			std::string error;
			try
			{
				BlueTuskConnection connection = BlueTuskConnection::open(cs, connector);
				chosen = _peers->letterOf(connection.connectedEndpoint());
				CPPUNIT_ASSERT_EQUAL_MESSAGE(where, std::string("1"), connection.executeSimple("SELECT 1").front().rows.at(0).at(0).value());
			}
			catch (BlueTuskNoAcceptableHostException& exc)
			{
				chosen = '!';
				error = exc.displayText();
			}
			catch (BlueTuskAuthenticationException& exc)
			{
				chosen = '#';
				error = exc.displayText();
			}
			if (parallel) CPPUNIT_ASSERT_MESSAGE(where + ": chose " + chosen + " " + error, raced.find(chosen) != std::string::npos);
			else CPPUNIT_ASSERT_EQUAL_MESSAGE(where + ": " + error, c.chosen, chosen);
			CPPUNIT_ASSERT_MESSAGE(where, error.find(PASSWORD) == std::string::npos);
			if (chosen == '#')
			{
				const std::string said = parallel ? "(the race was stopped" : "(later hosts not tried)";
				CPPUNIT_ASSERT_MESSAGE(where + ": " + error, error.find(said) != std::string::npos);
			}
			if (chosen != '!' && chosen != '#')
			{
				CPPUNIT_ASSERT_EQUAL_MESSAGE(where + " chosen peer connections", 1, _peers->startups(chosen));
			}
			const std::string counts(c.counts);
			for (std::size_t i = 0; i + 1 < counts.size(); i += 2)
			{
				int expected = counts[i + 1] - '0';
				int actual = _peers->startups(counts[i]);
				if (!parallel || chosen == '!')
				{
					CPPUNIT_ASSERT_EQUAL_MESSAGE(where + " connections to " + counts[i], expected, actual);
				}
				else
				{
					// Racing: every peer is contacted at most once (losers may be cancelled before startup).
					CPPUNIT_ASSERT_MESSAGE(where + " connections to " + counts[i], actual <= 1);
				}
			}
			CPPUNIT_ASSERT_MESSAGE(where + ": a connection was left open", _peers->idle(Poco::Timespan(2, 0)));
		}
	}

	void testTableSequential()
	{
		runTable("sequential");
	}

	void testTableParallel()
	{
		runTable("parallel");
	}

	void testFailureText()
	{
		RoutingContext connector;
		std::string cs = _peers->connectionString("SUTXHC", "Target Session Attributes=primary;Timeout=0.5");
		try
		{
			BlueTuskConnection::open(cs, connector);
			CPPUNIT_FAIL("expected BlueTuskNoAcceptableHostException");
		}
		catch (BlueTuskNoAcceptableHostException& exc)
		{
			std::string expected = "no acceptable host for target primary (Host Order=sequential): " +
				_peers->hostAndPort('S') + ": standby, target primary; " +
				_peers->hostAndPort('U') + ": 57P03 the database system is starting up; " +
				_peers->hostAndPort('T') + ": 53300 sorry, too many clients already; " +
				_peers->hostAndPort('X') + ": refused; " +
				_peers->hostAndPort('H') + ": timed out after 500 ms; " +
				_peers->hostAndPort('C') + ": closed";
			CPPUNIT_ASSERT_EQUAL(expected, exc.message());
			CPPUNIT_ASSERT(exc.displayText().find(PASSWORD) == std::string::npos);
			// Nested: one exception per endpoint, in attempt order, with the per-address detail.
			const Poco::Exception* nested = exc.nested();
			int count = 0;
			while (nested)
			{
				++count;
				CPPUNIT_ASSERT(nested->displayText().find(PASSWORD) == std::string::npos);
				nested = nested->nested();
			}
			CPPUNIT_ASSERT(count >= 6);
		}
	}

	void testParallelBlackHoleFirst()
	{
		// The healthy host alone.
		RoutingContext alone;
		Poco::Clock healthy;
		BlueTuskConnection::open(_peers->connectionString("P", "Timeout=5"), alone).close();
		long healthyMs = static_cast<long>(healthy.elapsed() / 1000);

		RoutingContext connector;
		Poco::Clock start;
		BlueTuskConnection connection = BlueTuskConnection::open(_peers->connectionString("HP", "Host Order=parallel;Timeout=5"), connector);
		long ms = static_cast<long>(start.elapsed() / 1000);
		CPPUNIT_ASSERT_EQUAL('P', _peers->letterOf(connection.connectedEndpoint()));
		CPPUNIT_ASSERT_MESSAGE(std::to_string(ms) + " ms (healthy host alone " + std::to_string(healthyMs) + " ms)",
			ms < healthyMs + 300);
		CPPUNIT_ASSERT_EQUAL(std::string("lost race"), HostAttempt::outcomeName(connection.attemptLog().at(0).outcome));
	}

	void testParallelAuthenticationStops()
	{
		RoutingContext connector;
		// A short stagger: should the slow primary connect first, the bad-password host starts 50 ms later.
		stagger(connector, 50);
		Poco::Clock start;
		try
		{
			BlueTuskConnection::open(_peers->connectionString("AD", "Host Order=parallel"), connector);
			CPPUNIT_FAIL("expected BlueTuskAuthenticationException");
		}
		catch (BlueTuskAuthenticationException& exc)
		{
			CPPUNIT_ASSERT(exc.message().find(_peers->hostAndPort('A')) != std::string::npos);
			CPPUNIT_ASSERT_MESSAGE(exc.message(), exc.message().find("(the race was stopped; attempts already under way were abandoned)") != std::string::npos);
			CPPUNIT_ASSERT(exc.displayText().find("28P01") != std::string::npos);
			CPPUNIT_ASSERT(exc.displayText().find(PASSWORD) == std::string::npos);
		}
		long ms = static_cast<long>(start.elapsed() / 1000);
		CPPUNIT_ASSERT_MESSAGE(std::to_string(ms), ms < 280); // the slow primary's attempt was abandoned
		CPPUNIT_ASSERT_EQUAL(0, _peers->backends.at('D')->sessionsReady());
		CPPUNIT_ASSERT(_peers->idle(Poco::Timespan(2, 0)));
	}

	void testParallelFallbackHeld()
	{
		// prefer-standby: the primary answers at once, the standby after 300 ms: the fallback is held until
		// the standby's Accept arrives, then closed.
		_peers->backends.at('S')->setScript(BackendScript::standby().delayStartup(300));
		RoutingContext connector;
		BlueTuskConnection connection = BlueTuskConnection::open(
			_peers->connectionString("PS", "Host Order=parallel;Target Session Attributes=prefer-standby"), connector);
		CPPUNIT_ASSERT_EQUAL('S', _peers->letterOf(connection.connectedEndpoint()));
		CPPUNIT_ASSERT(_peers->backends.at('P')->waitForActiveConnections(0, Poco::Timespan(2, 0)));
		// With only fallbacks, the first one is returned after every attempt ended (U fails, P retained).
		_peers->resetCounters();
		RoutingContext second;
		BlueTuskConnection fallback = BlueTuskConnection::open(
			_peers->connectionString("UPR", "Host Order=parallel;Target Session Attributes=prefer-standby"), second);
		char chosen = _peers->letterOf(fallback.connectedEndpoint());
		CPPUNIT_ASSERT(chosen == 'P' || chosen == 'R');
		CPPUNIT_ASSERT_EQUAL(1, _peers->startups(chosen)); // held, not reconnected
	}

	void testParallelPacesStartups()
	{
		// Two healthy hosts, target any, the default staggers (connects 1 ms apart, startups 250 ms): only
		// the first connected runs its startup; it wins in a few milliseconds and the other attempt is
		// cancelled before its server did any work (no StartupMessage; usually not even a TCP connection).
		RoutingContext connector;
		BlueTuskConnection connection = BlueTuskConnection::open(_peers->connectionString("PR", "Host Order=parallel"), connector);
		const char chosen = _peers->letterOf(connection.connectedEndpoint());
		CPPUNIT_ASSERT(chosen == 'P' || chosen == 'R');
		CPPUNIT_ASSERT_EQUAL(1, _peers->startups(chosen));
		CPPUNIT_ASSERT_EQUAL(1, _peers->startups('P') + _peers->startups('R'));
		const HostAttemptList& log = connection.attemptLog();
		CPPUNIT_ASSERT_EQUAL(std::size_t(2), log.size());
		const HostAttempt& other = log.at(chosen == 'P' ? 1 : 0);
		CPPUNIT_ASSERT_EQUAL(std::string("lost race"), HostAttempt::outcomeName(other.outcome));
		connection.close();
		CPPUNIT_ASSERT(_peers->idle(Poco::Timespan(2, 0)));
	}

	void testParallelZeroStaggerStartsEveryone()
	{
		// startupStaggerMs=0: a plain race, every connected attempt starts at once: the slow primary (D,
		// 300 ms) got its StartupMessage although the fast one won.
		RoutingContext connector;
		stagger(connector, 0);
		BlueTuskConnection connection = BlueTuskConnection::open(_peers->connectionString("DP", "Host Order=parallel"), connector);
		CPPUNIT_ASSERT_EQUAL('P', _peers->letterOf(connection.connectedEndpoint()));
		CPPUNIT_ASSERT(waitFor([this] { return _peers->startups('D') == 1; }));
		CPPUNIT_ASSERT_EQUAL(1, _peers->startups('P'));
	}

	void testParallelStaggerBoundsASlowStartup()
	{
		// A host that accepts but is slow to start (D answers after 300 ms) holds the race for at most the
		// stagger (100 ms) before the next connected attempt starts too: the open never waits for D.
		RoutingContext connector;
		stagger(connector, 100);
		for (int round = 0; round < 3; ++round)
		{
			_peers->resetCounters();
			Poco::Clock start;
			BlueTuskConnection connection = BlueTuskConnection::open(_peers->connectionString("DP", "Host Order=parallel"), connector);
			const long ms = static_cast<long>(start.elapsed() / 1000);
			CPPUNIT_ASSERT_EQUAL('P', _peers->letterOf(connection.connectedEndpoint()));
			CPPUNIT_ASSERT_MESSAGE(std::to_string(ms) + " ms", ms < 280);
			CPPUNIT_ASSERT_EQUAL(1, _peers->startups('P'));
			CPPUNIT_ASSERT(_peers->startups('D') <= 1);
			connection.close();
			CPPUNIT_ASSERT(_peers->idle(Poco::Timespan(2, 0)));
		}
	}

	void testParallelLoserIsNoConnectFailure()
	{
		// In a data source, the race's cancelled loser (the black hole) is not a connect failure of its
		// pool; a refused host that failed on its own is. The winner answers its StartupMessage 300 ms late
		// (D): with an instant winner (P) on two busy cores the refused host's attempt could still be
		// unstarted when the race ended, and be cancelled as a loser instead (1 run in about 5 under load).
		RoutingContext connector;
		auto dataSource = BlueTuskDataSource::create(_peers->connectionString("HXD", "Host Order=parallel;Timeout=5"), connector);
		BlueTuskConnection connection = dataSource->open();
		CPPUNIT_ASSERT_EQUAL('D', _peers->letterOf(connection.connectedEndpoint()));
		auto stats = dataSource->getHostPoolStatistics();
		CPPUNIT_ASSERT_EQUAL(Poco::UInt64(0), stats.at(_peers->hole.endpoint()).connectFailures);
		CPPUNIT_ASSERT_EQUAL(Poco::UInt64(1), stats.at(_peers->refused.endpoint()).connectFailures);
		CPPUNIT_ASSERT_EQUAL(Poco::UInt64(0), stats.at(_peers->backends.at('D')->endpoint()).connectFailures);
		CPPUNIT_ASSERT_EQUAL(Poco::UInt64(1), stats.at(_peers->backends.at('D')->endpoint()).created);
		CPPUNIT_ASSERT_EQUAL(std::string("lost race"), HostAttempt::outcomeName(connection.attemptLog().at(0).outcome));
	}

	void testParallelRejectLetsTheNextStart()
	{
		// target primary over a standby and a primary: a standby that entered first is rejected and the
		// primary starts at once (well before the 2 s stagger), whichever connected first.
		RoutingContext connector;
		stagger(connector, 2000);
		Poco::Clock start;
		BlueTuskConnection connection = BlueTuskConnection::open(
			_peers->connectionString("SP", "Host Order=parallel;Target Session Attributes=primary"), connector);
		const long ms = static_cast<long>(start.elapsed() / 1000);
		CPPUNIT_ASSERT_EQUAL('P', _peers->letterOf(connection.connectedEndpoint()));
		CPPUNIT_ASSERT_MESSAGE(std::to_string(ms) + " ms", ms < 1000);
		CPPUNIT_ASSERT(_peers->startups('S') <= 1);
	}

	void testSequentialBlackHoleWaitsTimeout()
	{
		RoutingContext connector;
		Poco::Clock start;
		BlueTuskConnection connection = BlueTuskConnection::open(_peers->connectionString("HP", "Timeout=0.4"), connector);
		long ms = static_cast<long>(start.elapsed() / 1000);
		CPPUNIT_ASSERT_EQUAL('P', _peers->letterOf(connection.connectedEndpoint()));
		CPPUNIT_ASSERT_MESSAGE(std::to_string(ms), ms >= 390 && ms < 1500);
		CPPUNIT_ASSERT_EQUAL(std::string("timed out after 400 ms"), connection.attemptLog().at(0).detail);
	}

	void testSecondOpenSkipsDeadHost()
	{
		RoutingContext connector;
		BlueTuskConnection::open(_peers->connectionString("HP", "Timeout=0.4"), connector).close();
		Poco::Clock start;
		BlueTuskConnection second = BlueTuskConnection::open(_peers->connectionString("HP", "Timeout=0.4"), connector);
		long ms = static_cast<long>(start.elapsed() / 1000);
		CPPUNIT_ASSERT_EQUAL('P', _peers->letterOf(second.connectedEndpoint()));
		CPPUNIT_ASSERT_MESSAGE(std::to_string(ms), ms < 300); // the known-dead host is tried last, not first
		CPPUNIT_ASSERT_EQUAL(std::size_t(1), second.attemptLog().size());
	}

	void testNoThreadOrConnectionLeftBehind()
	{
		// Warm up the process (plugins, logger) before counting.
		RoutingContext warm;
		BlueTuskConnection::open(_peers->connectionString("P", ""), warm).close();
		CPPUNIT_ASSERT(_peers->idle(Poco::Timespan(2, 0)));
		Poco::Thread::sleep(50);
		int before = threadCount();
		for (const char* target: {"primary", "prefer-standby", "any"})
		{
			RoutingContext connector;
			BlueTuskConnection connection = BlueTuskConnection::open(
				_peers->connectionString("HSRPUC", std::string("Host Order=parallel;Timeout=3;Target Session Attributes=") + target), connector);
			connection.close();
		}
		CPPUNIT_ASSERT(_peers->idle(Poco::Timespan(2, 0)));
		CPPUNIT_ASSERT_EQUAL(before, settledThreadCount(before)); // peer threads of closed connections exit
	}

private:
	static void stagger(RoutingContext& connector, int milliseconds)
		/// Configures the connector's parallel host-order policy (as the subsystem's policy.* would).
	{
		Poco::AutoPtr<Poco::Util::MapConfiguration> config(new Poco::Util::MapConfiguration);
		config->setInt("startupStaggerMs", milliseconds);
		connector.hostOrderPolicy("parallel")->configure(*config);
	}

	static bool waitFor(const std::function<bool()>& condition)
	{
		Poco::Clock clock;
		while (!condition())
		{
			if (clock.elapsed() > 2000000) return false;
			Poco::Thread::sleep(1);
		}
		return true;
	}

	std::unique_ptr<Peers> _peers;
};

CPPUNIT_TEST_SUITE_REGISTRATION(RoutingFaultTest);
