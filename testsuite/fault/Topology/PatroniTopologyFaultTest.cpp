//
// PatroniTopologyFaultTest.cpp
//
// The "patroni" topology source (Plugins/Topology/PatroniTopologySource) against a local HTTP peer that
// serves a captured /cluster answer of the real cluster (fixtures/patroni-3.0.2-cluster.json, Debian 12's
// Patroni 3.0.2 as scripts/patroni runs it) and hand-made variants: the member mapping, the URL list tried in
// turn, basic authentication, malformed answers and unreachable APIs (clear messages naming the URL, never
// the password), close() ending a read at once.
//

#include "BlueTusk/BlueTuskException.h"
#include "BlueTusk/RoutingContext.h"
#include "BlueTusk/ConnectionSettings.h"
#include "BlueTusk/TopologySource.h"
#include "BlackHoleListener.h"
#include "RefusedPort.h"
#include "Poco/Clock.h"
#include "Poco/FileStream.h"
#include "Poco/Net/HTTPRequestHandler.h"
#include "Poco/Net/HTTPRequestHandlerFactory.h"
#include "Poco/Net/HTTPServer.h"
#include "Poco/Net/HTTPServerRequest.h"
#include "Poco/Net/HTTPServerResponse.h"
#include "Poco/Net/ServerSocket.h"
#include "Poco/StreamCopier.h"
#include <cppunit/extensions/HelperMacros.h>
#include <mutex>
#include <sstream>
#include <thread>

using namespace BlueTusk;

namespace {

const char* const SECRET = "api-S3cret";


struct Answer
	/// What the HTTP peer answers (shared with its handler threads).
{
	std::mutex mutex;
	int status = 200;
	std::string body;
	std::string lastPath;
	std::string lastAuthorization;
	int requests = 0;
};


class AnswerHandler: public Poco::Net::HTTPRequestHandler
{
public:
	explicit AnswerHandler(Answer& answer): _answer(answer)
	{
	}

	void handleRequest(Poco::Net::HTTPServerRequest& request, Poco::Net::HTTPServerResponse& response) override
	{
		int status;
		std::string body;
		{
			std::lock_guard<std::mutex> lock(_answer.mutex);
			_answer.lastPath = request.getURI();
			_answer.lastAuthorization = request.get("Authorization", "");
			++_answer.requests;
			status = _answer.status;
			body = _answer.body;
		}
		response.setStatus(static_cast<Poco::Net::HTTPResponse::HTTPStatus>(status));
		response.setContentType("application/json");
		response.setContentLength(static_cast<std::streamsize>(body.size()));
		response.send() << body;
	}

private:
	Answer& _answer;
};


class AnswerFactory: public Poco::Net::HTTPRequestHandlerFactory
{
public:
	explicit AnswerFactory(Answer& answer): _answer(answer)
	{
	}

	Poco::Net::HTTPRequestHandler* createRequestHandler(const Poco::Net::HTTPServerRequest&) override
	{
		return new AnswerHandler(_answer);
	}

private:
	Answer& _answer;
};


struct PatroniPeer
	/// A Patroni REST API stand-in on 127.0.0.1, an ephemeral port.
{
	Answer answer;
	Poco::Net::ServerSocket socket{Poco::Net::SocketAddress("127.0.0.1", 0)};
	Poco::Net::HTTPServer server{new AnswerFactory(answer), socket, new Poco::Net::HTTPServerParams};

	PatroniPeer()
	{
		server.start();
	}

	~PatroniPeer()
	{
		server.stopAll(true);
	}

	std::string url() const
	{
		return "http://127.0.0.1:" + std::to_string(socket.address().port());
	}

	void serve(int status, const std::string& body)
	{
		std::lock_guard<std::mutex> lock(answer.mutex);
		answer.status = status;
		answer.body = body;
	}
};


std::string fixture()
{
	Poco::FileInputStream in(std::string(BLUETUSK_SOURCE_DIR) + "/testsuite/fault/Topology/fixtures/patroni-3.0.2-cluster.json");
	std::string text;
	Poco::StreamCopier::copyToString(in, text);
	return text;
}


TopologySource::Ptr patroni(const std::string& location, const std::string& extra = "")
{
	static RoutingContext connector;
	TopologySource::Ptr source = connector.createTopologySource("patroni");
	source->configure(location, ConnectionSettings::parse("Host=127.0.0.1;Username=app;Password=" + std::string(SECRET) + extra));
	return source;
}

} // namespace


class PatroniTopologyFaultTest: public CppUnit::TestFixture
{
	CPPUNIT_TEST_SUITE(PatroniTopologyFaultTest);
	CPPUNIT_TEST(testCapturedClusterMapped);
	CPPUNIT_TEST(testRolesAndStates);
	CPPUNIT_TEST(testLagAndTimelineUnknown);
	CPPUNIT_TEST(testUrlsTriedInTurn);
	CPPUNIT_TEST(testBasicAuthentication);
	CPPUNIT_TEST(testHttpErrorNamesUrl);
	CPPUNIT_TEST(testMalformedAnswers);
	CPPUNIT_TEST(testUnreachable);
	CPPUNIT_TEST(testBlackHoleWithinTimeout);
	CPPUNIT_TEST(testCloseEndsRead);
	CPPUNIT_TEST(testBadLocations);
	CPPUNIT_TEST_SUITE_END();

public:
	void testCapturedClusterMapped()
	{
		PatroniPeer peer;
		peer.serve(200, fixture());
		TopologySnapshot snapshot = patroni(peer.url())->read(Poco::Timespan(5, 0));
		CPPUNIT_ASSERT_EQUAL(std::string("/cluster"), peer.answer.lastPath);
		CPPUNIT_ASSERT_EQUAL(std::size_t(3), snapshot.members.size());
		const TopologyMember& node1 = snapshot.members[0];
		CPPUNIT_ASSERT_EQUAL(std::string("node1"), node1.name);
		CPPUNIT_ASSERT(node1.endpoint == BlueTuskHostEndpoint("127.0.0.1", 58462));
		CPPUNIT_ASSERT(node1.role == ServerRole::Standby);
		CPPUNIT_ASSERT_EQUAL(std::string("running"), node1.state);
		CPPUNIT_ASSERT_EQUAL(Poco::UInt32(22), node1.timeline);
		CPPUNIT_ASSERT_EQUAL(Poco::Int64(0), node1.lagBytes);
		const TopologyMember& node3 = snapshot.members[2];
		CPPUNIT_ASSERT(node3.endpoint == BlueTuskHostEndpoint("127.0.0.3", 58462));
		CPPUNIT_ASSERT(node3.role == ServerRole::Primary);
		CPPUNIT_ASSERT_EQUAL(Poco::Int64(-1), node3.lagBytes);  // the leader has no lag field
		CPPUNIT_ASSERT(snapshot.readAt.epochMicroseconds() > 0);
	}

	void testRolesAndStates()
	{
		PatroniPeer peer;
		peer.serve(200, R"({"members": [
			{"name": "a", "role": "leader", "state": "running", "host": "10.0.0.1", "port": 5432, "timeline": 3},
			{"name": "b", "role": "sync_standby", "state": "streaming", "host": "10.0.0.2", "port": 5432, "timeline": 3, "lag": 16},
			{"name": "c", "role": "replica", "state": "starting", "host": "10.0.0.3", "port": 5433, "lag": "unknown"},
			{"name": "d", "role": "standby_leader", "state": "running", "host": "10.0.0.4", "port": "5434"},
			{"name": "e", "role": "replica", "state": "stopped", "host": "10.0.0.5", "port": 5432},
			{"name": "f", "role": "uninitialized", "state": "running", "host": "10.0.0.6", "port": 5432},
			{"name": "g", "role": "replica", "state": "running"}],
			"scope": "demo"})");
		TopologySnapshot snapshot = patroni(peer.url())->read(Poco::Timespan(5, 0));
		CPPUNIT_ASSERT_EQUAL(std::size_t(6), snapshot.members.size());  // g has no host: left out
		CPPUNIT_ASSERT(snapshot.members[0].role == ServerRole::Primary);
		CPPUNIT_ASSERT(snapshot.members[1].role == ServerRole::Standby);
		CPPUNIT_ASSERT_EQUAL(Poco::Int64(16), snapshot.members[1].lagBytes);
		CPPUNIT_ASSERT(snapshot.members[2].role == ServerRole::Unknown);  // starting: listed, role unknown
		CPPUNIT_ASSERT(snapshot.members[2].endpoint == BlueTuskHostEndpoint("10.0.0.3", 5433));
		CPPUNIT_ASSERT(snapshot.members[3].role == ServerRole::Standby);  // a standby cluster's leader
		CPPUNIT_ASSERT(snapshot.members[3].endpoint == BlueTuskHostEndpoint("10.0.0.4", 5434));
		CPPUNIT_ASSERT(snapshot.members[4].role == ServerRole::Unknown);  // stopped
		CPPUNIT_ASSERT_EQUAL(std::string("stopped"), snapshot.members[4].state);
		CPPUNIT_ASSERT(snapshot.members[5].role == ServerRole::Unknown);
	}

	void testLagAndTimelineUnknown()
	{
		PatroniPeer peer;
		peer.serve(200, R"({"members": [{"name": "b", "role": "replica", "state": "streaming", "host": "h", "port": 1, "lag": "unknown"}]})");
		TopologySnapshot snapshot = patroni(peer.url())->read(Poco::Timespan(5, 0));
		CPPUNIT_ASSERT_EQUAL(Poco::Int64(-1), snapshot.members[0].lagBytes);
		CPPUNIT_ASSERT_EQUAL(Poco::UInt32(0), snapshot.members[0].timeline);
	}

	void testUrlsTriedInTurn()
	{
		// The first API refuses, the second serves an error page, the third answers: the third wins.
		Test::RefusedPort refused;
		PatroniPeer broken;
		broken.serve(503, "{}");
		PatroniPeer good;
		good.serve(200, fixture());
		TopologySource::Ptr source = patroni("http://" + refused.hostAndPort() + ", " + broken.url() + "," + good.url() + "/");
		TopologySnapshot snapshot = source->read(Poco::Timespan(5, 0));
		CPPUNIT_ASSERT_EQUAL(std::size_t(3), snapshot.members.size());
		CPPUNIT_ASSERT_EQUAL(1, broken.answer.requests);
		CPPUNIT_ASSERT_EQUAL(std::string("/cluster"), good.answer.lastPath);
	}

	void testBasicAuthentication()
	{
		PatroniPeer peer;
		peer.serve(401, "");
		const std::string url = "http://patroni:" + std::string(SECRET) + "@127.0.0.1:" + peer.url().substr(peer.url().rfind(':') + 1);
		TopologySource::Ptr source = patroni(url);
		try
		{
			source->read(Poco::Timespan(5, 0));
			CPPUNIT_FAIL("401 must fail the read");
		}
		catch (const BlueTuskException& e)
		{
			CPPUNIT_ASSERT(e.message().find("HTTP 401") != std::string::npos);
			CPPUNIT_ASSERT(e.message().find(peer.url() + "/cluster") != std::string::npos);
			CPPUNIT_ASSERT(e.displayText().find(SECRET) == std::string::npos);
		}
		// "patroni:api-S3cret" in base64
		CPPUNIT_ASSERT_EQUAL(std::string("Basic cGF0cm9uaTphcGktUzNjcmV0"), peer.answer.lastAuthorization);
		peer.serve(200, fixture());
		CPPUNIT_ASSERT_EQUAL(std::size_t(3), source->read(Poco::Timespan(5, 0)).members.size());
	}

	void testHttpErrorNamesUrl()
	{
		PatroniPeer peer;
		peer.serve(503, "{\"members\": []}");
		try
		{
			patroni(peer.url())->read(Poco::Timespan(5, 0));
			CPPUNIT_FAIL("503 must fail the read");
		}
		catch (const BlueTuskTransportException&)
		{
			CPPUNIT_FAIL("the API answered: not a transport failure");
		}
		catch (const BlueTuskException& e)
		{
			CPPUNIT_ASSERT(e.message().find(peer.url() + "/cluster: HTTP 503") != std::string::npos);
		}
	}

	void testMalformedAnswers()
	{
		const std::pair<const char*, const char*> cases[] = {
			{"<html>not json</html>", "is not JSON"},
			{"[1, 2]", "not a JSON object"},
			{"{\"scope\": \"x\"}", "no \"members\" array"},
			{"{\"members\": [17]}", "member 1 of \"members\" is not an object"},
			{"{\"members\": []}", "no usable member (0 members"},
			{"{\"members\": [{\"name\": \"a\", \"role\": \"leader\"}]}", "no usable member (1 members, 1 without host and port)"},
			{"{\"members\": [{\"host\": \"a\", \"port\": 70000}]}", "no usable member"},
		};
		PatroniPeer peer;
		for (const auto& c: cases)
		{
			peer.serve(200, c.first);
			try
			{
				patroni(peer.url())->read(Poco::Timespan(5, 0));
				CPPUNIT_FAIL(std::string("accepted: ") + c.first);
			}
			catch (const BlueTuskException& e)
			{
				CPPUNIT_ASSERT_MESSAGE(e.message(), e.message().find(peer.url() + "/cluster: ") != std::string::npos);
				CPPUNIT_ASSERT_MESSAGE(e.message(), e.message().find(c.second) != std::string::npos);
			}
		}
	}

	void testUnreachable()
	{
		Test::RefusedPort one;
		Test::RefusedPort two("127.0.0.2");
		const std::string location = "http://user:" + std::string(SECRET) + "@" + one.hostAndPort() + ",http://" + two.hostAndPort();
		try
		{
			patroni(location)->read(Poco::Timespan(5, 0));
			CPPUNIT_FAIL("nothing answers");
		}
		catch (const BlueTuskTransportException& e)
		{
			CPPUNIT_ASSERT_MESSAGE(e.message(), e.message().find("http://" + one.hostAndPort() + "/cluster") != std::string::npos);
			CPPUNIT_ASSERT_MESSAGE(e.message(), e.message().find("http://" + two.hostAndPort() + "/cluster") != std::string::npos);
			CPPUNIT_ASSERT(e.displayText().find(SECRET) == std::string::npos);
		}
	}

	void testBlackHoleWithinTimeout()
	{
		// A black-holed first URL uses up the read's time; the read ends near its deadline, not later.
		Test::BlackHoleListener hole;
		PatroniPeer good;
		good.serve(200, fixture());
		TopologySource::Ptr source = patroni("http://127.0.0.1:" + std::to_string(hole.port()) + "," + good.url());
		Poco::Clock start;
		try
		{
			source->read(Poco::Timespan(0, 500000));
			CPPUNIT_FAIL("the black hole took all the time");
		}
		catch (const BlueTuskException& e)
		{
			CPPUNIT_ASSERT_MESSAGE(e.message(), e.message().find("not tried (no time left)") != std::string::npos);
		}
		CPPUNIT_ASSERT(start.elapsed() < 3000000);
		CPPUNIT_ASSERT_EQUAL(0, good.answer.requests);
	}

	void testCloseEndsRead()
	{
		Test::BlackHoleListener hole;
		TopologySource::Ptr source = patroni("http://127.0.0.1:" + std::to_string(hole.port()));
		Poco::Clock start;
		std::thread closer([&source] { std::this_thread::sleep_for(std::chrono::milliseconds(200)); source->close(); });
		try
		{
			source->read(Poco::Timespan(20, 0));
		}
		catch (const BlueTuskException&)
		{
		}
		closer.join();
		CPPUNIT_ASSERT(start.elapsed() < 10000000);
		CPPUNIT_ASSERT(!source->waitForChange(Poco::Timespan(5, 0))); // closed: returns at once
		CPPUNIT_ASSERT(start.elapsed() < 10000000);
	}

	void testBadLocations()
	{
		const std::pair<std::string, const char*> cases[] = {
			{"ftp://h:21", "not an http or https URL"},
			{"http://h:8008,,http://i:8008", "an empty URL"},
			{"http://h:8008/?x=1", "without query"},
			{"http://", "names no host"},
			{"http://u:" + std::string(SECRET) + "@h:8008?q", "without query"},
		};
		for (const auto& c: cases)
		{
			try
			{
				patroni(c.first);
				CPPUNIT_FAIL("accepted: " + c.first);
			}
			catch (const BlueTuskConnectionStringException& e)
			{
				CPPUNIT_ASSERT_MESSAGE(e.message(), e.message().find("Topology Source") != std::string::npos);
				CPPUNIT_ASSERT_MESSAGE(e.message(), e.message().find(c.second) != std::string::npos);
				CPPUNIT_ASSERT_MESSAGE(e.message(), e.message().find(SECRET) == std::string::npos);
			}
		}
	}
};

CPPUNIT_TEST_SUITE_REGISTRATION(PatroniTopologyFaultTest);
