//
// ScriptedTopology.cpp
//
// A site topology source built only for the test suite: "scripted:<file>" reads its members from a file the
// test rewrites, one line per member: "<host>:<port> <role> [<state>]" (role: primary, standby or unknown).
// A line "fail <text>" makes the read throw a BlueTuskException, "throw-std <text>" a std::runtime_error,
// "throw-int" an int (what a careless plugin might throw); "delay <ms>" makes it wait first (within the
// read's timeout, ended by close()); "stall <ms>" makes it sleep, ignoring both the timeout and close().
// The location "configure-throw-int" makes configure() throw an int. It uses nothing but the public headers, as a site would (doc/plugins.md).
//

#include "BlueTusk/BlueTuskException.h"
#include "BlueTusk/TopologySource.h"
#include "BlueTusk/PluginRegistry.h"
#include "Poco/ClassLibrary.h"
#include <chrono>
#include <condition_variable>
#include <fstream>
#include <mutex>
#include <sstream>
#include <stdexcept>
#include <thread>

namespace {

class ScriptedTopology: public BlueTusk::TopologySource
{
public:
	std::string name() const override
	{
		return "scripted";
	}

	void configure(const std::string& location, const BlueTusk::ConnectionSettings&) override
	{
		if (location.empty()) throw BlueTusk::BlueTuskConnectionStringException("Topology Source: scripted needs a file");
		if (location == "configure-throw-int") throw 42;   // a careless plugin's configure()
		_file = location;
	}

	BlueTusk::TopologySnapshot read(const Poco::Timespan& timeout) override
	{
		std::ifstream in(_file);
		if (!in) throw BlueTusk::BlueTuskException("scripted topology: cannot read " + _file);
		BlueTusk::TopologySnapshot snapshot;
		std::string line;
		while (std::getline(in, line))
		{
			std::istringstream words(line);
			std::string first, role, state;
			words >> first;
			if (first.empty()) continue;
			if (first == "fail") throw BlueTusk::BlueTuskException("scripted topology: " + line.substr(5));
			if (first == "throw-std") throw std::runtime_error("scripted topology: " + line.substr(10));
			if (first == "throw-int") throw 42;
			if (first == "delay")
			{
				int ms = 0;
				words >> ms;
				std::unique_lock<std::mutex> lock(_mutex);
				const auto limit = std::chrono::milliseconds(std::min<long long>(ms, timeout.totalMilliseconds()));
				_wake.wait_for(lock, limit, [this] { return _closing; });
				continue;
			}
			if (first == "stall")
			{
				int ms = 0;
				words >> ms;
				std::this_thread::sleep_for(std::chrono::milliseconds(ms));
				continue;
			}
			words >> role >> state;
			const std::string::size_type colon = first.rfind(':');
			BlueTusk::TopologyMember member;
			member.endpoint = BlueTusk::BlueTuskHostEndpoint(first.substr(0, colon),
				static_cast<Poco::UInt16>(std::stoi(first.substr(colon + 1))));
			member.name = first;
			member.role = role == "primary" ? BlueTusk::ServerRole::Primary :
				role == "standby" ? BlueTusk::ServerRole::Standby : BlueTusk::ServerRole::Unknown;
			member.state = state.empty() ? std::string("running") : state;
			snapshot.members.push_back(member);
		}
		if (snapshot.members.empty()) throw BlueTusk::BlueTuskException("scripted topology: no member in " + _file);
		return snapshot;
	}

	void close() override
	{
		{
			std::lock_guard<std::mutex> lock(_mutex);
			_closing = true;
			_wake.notify_all();
		}
		TopologySource::close();
	}

private:
	std::string _file;
	std::mutex _mutex;
	std::condition_variable _wake;
	bool _closing = false;
};

} // namespace


POCO_BEGIN_MANIFEST(BlueTusk::TopologySource)
	POCO_EXPORT_INTERFACE(ScriptedTopology, "scripted")
POCO_END_MANIFEST

BLUETUSK_PLUGIN_ABI(); // the plugin ABI version it is built for (doc/plugins.md)
