//
// FakeWorld.cpp
//

#include "FakeWorld.h"
#include <random>

namespace BlueTusk {
namespace Test {

namespace {

FakeHost playing(ServerRole role, int delayMs)
{
	FakeHost host;
	host.role = role;
	host.delayMs = delayMs;
	return host;
}


FakeHost failing(FakeHost::Failure failure, const std::string& sqlState = "", const std::string& message = "")
{
	FakeHost host;
	host.failure = failure;
	host.sqlState = sqlState;
	host.message = message;
	return host;
}

} // namespace


FakeHost FakeHost::primary(int delayMs)
{
	return playing(ServerRole::Primary, delayMs);
}


FakeHost FakeHost::primaryReadOnly(int delayMs)
{
	return playing(ServerRole::PrimaryReadOnly, delayMs);
}


FakeHost FakeHost::standby(int delayMs)
{
	return playing(ServerRole::Standby, delayMs);
}


FakeHost FakeHost::refused()
{
	return failing(REFUSED);
}


FakeHost FakeHost::blackHole()
{
	return failing(BLACK_HOLE);
}


FakeHost FakeHost::earlyClose()
{
	return failing(EARLY_CLOSE);
}


FakeHost FakeHost::startingUp()
{
	return failing(SQLSTATE, "57P03", "the database system is starting up");
}


FakeHost FakeHost::tooManyConnections()
{
	return failing(SQLSTATE, "53300", "sorry, too many clients already");
}


FakeHost FakeHost::badPassword()
{
	return failing(SQLSTATE, "28P01", "password authentication failed for user \"app\"");
}


FakeHost FakeHost::badSignature()
{
	return failing(AUTH_SIGNATURE);
}


FakeWorld::Host& FakeWorld::host(const std::string& endpoint)
{
	auto it = _hosts.find(endpoint);
	if (it == _hosts.end()) it = _hosts.emplace(endpoint, Host{_everyHost}).first;
	return it->second;
}


int FakeWorld::count(const std::string& endpoint, int Host::*counter) const
{
	std::lock_guard<std::mutex> lock(_mutex);
	auto it = _hosts.find(endpoint);
	return it == _hosts.end() ? 0 : it->second.*counter;
}


void FakeWorld::script(const std::string& endpoint, const FakeHost& script)
{
	std::lock_guard<std::mutex> lock(_mutex);
	host(endpoint).script = script;
}


void FakeWorld::setRole(const std::string& endpoint, ServerRole role)
{
	std::lock_guard<std::mutex> lock(_mutex);
	host(endpoint).script.role = role;
}


void FakeWorld::setRole(ServerRole role)
{
	std::lock_guard<std::mutex> lock(_mutex);
	_everyHost.role = role;
	for (auto& entry: _hosts) entry.second.script.role = role;
}


ServerRole FakeWorld::roleOf(const std::string& endpoint) const
{
	std::lock_guard<std::mutex> lock(_mutex);
	auto it = _hosts.find(endpoint);
	return it == _hosts.end() ? _everyHost.role : it->second.script.role;
}


int FakeWorld::opens(const std::string& endpoint) const
{
	return count(endpoint, &Host::opens);
}


int FakeWorld::connections(const std::string& endpoint) const
{
	return count(endpoint, &Host::connections);
}


int FakeWorld::probes(const std::string& endpoint) const
{
	return count(endpoint, &Host::probes);
}


int FakeWorld::live(const std::string& endpoint) const
{
	return count(endpoint, &Host::live);
}


int FakeWorld::totalOpens() const
{
	std::lock_guard<std::mutex> lock(_mutex);
	int total = 0;
	for (const auto& entry: _hosts) total += entry.second.opens;
	return total;
}


int FakeWorld::totalLive() const
{
	std::lock_guard<std::mutex> lock(_mutex);
	int total = 0;
	for (const auto& entry: _hosts) total += entry.second.live;
	return total;
}


std::vector<std::string> FakeWorld::sqlOf(int sessionId) const
{
	std::lock_guard<std::mutex> lock(_mutex);
	auto it = _sql.find(sessionId);
	return it == _sql.end() ? std::vector<std::string>() : it->second;
}


FakeHost FakeWorld::attempt(const std::string& endpoint)
{
	std::lock_guard<std::mutex> lock(_mutex);
	Host& entry = host(endpoint);
	++entry.opens;
	return entry.script;
}


ServerRole FakeWorld::connect(const std::string& endpoint)
{
	++opened;
	std::lock_guard<std::mutex> lock(_mutex);
	Host& entry = host(endpoint);
	++entry.connections;
	++entry.live;
	return entry.script.role;
}


void FakeWorld::disconnect(const std::string& endpoint)
{
	std::lock_guard<std::mutex> lock(_mutex);
	--host(endpoint).live;
}


FakeHost FakeWorld::probe(const std::string& endpoint)
{
	std::lock_guard<std::mutex> lock(_mutex);
	Host& entry = host(endpoint);
	++entry.probes;
	return entry.script;
}


bool FakeWorld::takeInjectedFailure()
{
	thread_local std::mt19937 random(std::random_device{}());
	int pending = failNextOpens.load();
	while (pending > 0)
	{
		if (failNextOpens.compare_exchange_weak(pending, pending - 1)) return true;
	}
	return openFailurePermille > 0 && static_cast<int>(random() % 1000) < openFailurePermille;
}


int FakeWorld::nextSessionId()
{
	std::lock_guard<std::mutex> lock(_mutex);
	return _nextSessionId++;
}


void FakeWorld::record(int sessionId, const std::string& sql)
{
	std::lock_guard<std::mutex> lock(_mutex);
	_sql[sessionId].push_back(sql);
}

} } // namespace BlueTusk::Test
