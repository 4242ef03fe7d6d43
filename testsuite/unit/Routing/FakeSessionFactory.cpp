//
// FakeSessionFactory.cpp
//

#include "FakeSessionFactory.h"
#include "BlueTusk/BlueTuskException.h"
#include "Poco/Clock.h"
#include "Poco/Thread.h"

namespace BlueTusk {
namespace Test {

FakeHost FakeHost::primary(int delayMs)
{
	FakeHost host;
	host.role = ServerRole::Primary;
	host.delayMs = delayMs;
	return host;
}


FakeHost FakeHost::primaryReadOnly(int delayMs)
{
	FakeHost host = primary(delayMs);
	host.role = ServerRole::PrimaryReadOnly;
	return host;
}


FakeHost FakeHost::standby(int delayMs)
{
	FakeHost host = primary(delayMs);
	host.role = ServerRole::Standby;
	return host;
}


FakeHost FakeHost::refused()
{
	FakeHost host;
	host.failure = REFUSED;
	return host;
}


FakeHost FakeHost::blackHole()
{
	FakeHost host;
	host.failure = BLACK_HOLE;
	return host;
}


FakeHost FakeHost::earlyClose()
{
	FakeHost host;
	host.failure = EARLY_CLOSE;
	return host;
}


FakeHost FakeHost::startingUp()
{
	FakeHost host;
	host.failure = SQLSTATE;
	host.sqlState = "57P03";
	host.message = "the database system is starting up";
	return host;
}


FakeHost FakeHost::tooManyConnections()
{
	FakeHost host;
	host.failure = SQLSTATE;
	host.sqlState = "53300";
	host.message = "sorry, too many clients already";
	return host;
}


FakeHost FakeHost::badPassword()
{
	FakeHost host;
	host.failure = SQLSTATE;
	host.sqlState = "28P01";
	host.message = "password authentication failed for user \"app\"";
	return host;
}


FakeHost FakeHost::badSignature()
{
	FakeHost host;
	host.failure = AUTH_SIGNATURE;
	return host;
}


struct FakeSessionFactory::State
{
	struct Host
	{
		FakeHost script;
		int opens = 0;
		int connections = 0;
		int probes = 0;
		int live = 0;
	};

	mutable std::mutex mutex;
	std::map<std::string, Host> hosts;
	int cancelled = 0;

	Host& host(const std::string& endpoint)
	{
		return hosts[endpoint];
	}
};


namespace {

class FakeSession: public Session
{
public:
	FakeSession(std::shared_ptr<FakeSessionFactory::State> state, const BlueTuskHostEndpoint& endpoint):
		_state(std::move(state)),
		_endpoint(endpoint),
		_key(endpoint.toString())
	{
	}

	~FakeSession()
	{
		close();
	}

	const BlueTuskHostEndpoint& endpoint() const override
	{
		return _endpoint;
	}

	std::string connectedAddress() const override
	{
		return _key;
	}

	ServerRole role() const override
	{
		return _role;
	}

	ServerRole probeRole(bool force) override
	{
		if (_closed) throw BlueTuskSessionBrokenException("session closed");
		if (force || _role == ServerRole::Unknown)
		{
			std::lock_guard<std::mutex> lock(_state->mutex);
			auto& host = _state->host(_key);
			++host.probes;
			if (host.script.failure != FakeHost::NONE)
			{
				// The server went away while the session sat idle.
				_broken = true;
				throw BlueTuskSessionBrokenException("server closed the connection unexpectedly");
			}
			_role = host.script.role;
		}
		return _role;
	}

	bool isBroken() const override
	{
		return _broken || _closed;
	}

	TransactionStatus transactionStatus() const override
	{
		return TransactionStatus::Idle;
	}

	void reset(bool) override
	{
		if (isBroken()) throw BlueTuskSessionBrokenException("session broken");
	}

	void close() override
	{
		if (_closed) return;
		_closed = true;
		std::lock_guard<std::mutex> lock(_state->mutex);
		--_state->host(_key).live;
	}

	std::vector<QueryResult> executeSimple(const std::string& sql) override
	{
		QueryResult result;
		result.commandTag = "SELECT 1";
		ColumnDescription column;
		column.name = "query";
		result.columns.push_back(column);
		result.rows.push_back(Row{FieldValue(sql)});
		return {result};
	}

	QueryResult execute(const std::string& sql, const std::vector<FieldValue>&) override
	{
		return executeSimple(sql).front();
	}

	void cancel() override
	{
	}

	std::string parameterStatus(const std::string&) const override
	{
		return std::string();
	}

	Poco::Timestamp createdAt() const override
	{
		return _createdAt;
	}

	void setRole(ServerRole role)
	{
		_role = role;
	}

private:
	std::shared_ptr<FakeSessionFactory::State> _state;
	BlueTuskHostEndpoint _endpoint;
	std::string _key;
	ServerRole _role = ServerRole::Unknown;
	bool _broken = false;
	bool _closed = false;
	Poco::Timestamp _createdAt;
};


bool waitOrCancel(int ms, const OpenCancellation* cancellation)
	/// Sleeps ms in slices of 5 ms; false when cancelled first.
{
	Poco::Clock start;
	while (start.elapsed() < static_cast<Poco::Clock::ClockDiff>(ms) * 1000)
	{
		if (cancellation && cancellation->isCancelled()) return false;
		Poco::Thread::sleep(5);
	}
	return !(cancellation && cancellation->isCancelled());
}


Session::Ptr openFake(const std::shared_ptr<FakeSessionFactory::State>& state, const BlueTuskHostEndpoint& endpoint,
	const ConnectionSettings& settings, const OpenCancellation* cancellation)
{
	const std::string key = endpoint.toString();
	FakeHost script;
	{
		std::lock_guard<std::mutex> lock(state->mutex);
		auto& host = state->host(key);
		++host.opens;
		script = host.script;
	}
	auto cancelled = [&]() -> Session::Ptr
	{
		std::lock_guard<std::mutex> lock(state->mutex);
		++state->cancelled;
		throw BlueTuskTransportException("connection attempt to " + key + " cancelled");
	};
	AddressAttempt attempt;
	attempt.address = key;
	int delay = script.delayMs;
	if (script.failure == FakeHost::BLACK_HOLE)
	{
		delay = static_cast<int>(settings.connectTimeout.totalMilliseconds());
	}
	Poco::Clock start;
	if (!waitOrCancel(delay, cancellation)) return cancelled();
	attempt.elapsedMs = static_cast<double>(start.elapsed()) / 1000.0;
	switch (script.failure)
	{
	case FakeHost::NONE:
		break;
	case FakeHost::REFUSED:
		attempt.outcome = AddressAttempt::REFUSED;
		attempt.errorText = "Connection refused";
		throw BlueTuskTransportException(key, AddressAttemptList{attempt});
	case FakeHost::BLACK_HOLE:
		attempt.outcome = AddressAttempt::TIMED_OUT;
		attempt.errorText = "no answer within " + std::to_string(delay) + " ms";
		throw BlueTuskTransportException(key, AddressAttemptList{attempt});
	case FakeHost::EARLY_CLOSE:
		attempt.outcome = AddressAttempt::CLOSED;
		attempt.errorText = "server closed the connection unexpectedly";
		throw BlueTuskTransportException(key, AddressAttemptList{attempt});
	case FakeHost::SQLSTATE:
	{
		BlueTuskServerException::Fields fields;
		fields.severity = "FATAL";
		fields.sqlState = script.sqlState;
		fields.message = script.message;
		throw BlueTuskServerException(fields, false);
	}
	case FakeHost::AUTH_SIGNATURE:
		throw BlueTuskAuthenticationException("the SCRAM server signature from " + key + " did not verify");
	}
	auto session = std::make_unique<FakeSession>(state, endpoint);
	{
		std::lock_guard<std::mutex> lock(state->mutex);
		auto& host = state->host(key);
		++host.connections;
		++host.live;
		// Like ProtocolSessionFactory with a target: PostgreSQL 14+ reports the role at startup.
		if (settings.targetSessionAttributes != TargetSessionAttributes::Any) session->setRole(host.script.role);
	}
	return session;
}

} // namespace


FakeSessionFactory::FakeSessionFactory():
	_state(std::make_shared<State>())
{
}


FakeSessionFactory::~FakeSessionFactory()
{
}


void FakeSessionFactory::script(const std::string& endpoint, const FakeHost& host)
{
	std::lock_guard<std::mutex> lock(_state->mutex);
	_state->host(endpoint).script = host;
}


void FakeSessionFactory::setRole(const std::string& endpoint, ServerRole role)
{
	std::lock_guard<std::mutex> lock(_state->mutex);
	_state->host(endpoint).script.role = role;
}


int FakeSessionFactory::opens(const std::string& endpoint) const
{
	std::lock_guard<std::mutex> lock(_state->mutex);
	auto it = _state->hosts.find(endpoint);
	return it == _state->hosts.end() ? 0 : it->second.opens;
}


int FakeSessionFactory::connections(const std::string& endpoint) const
{
	std::lock_guard<std::mutex> lock(_state->mutex);
	auto it = _state->hosts.find(endpoint);
	return it == _state->hosts.end() ? 0 : it->second.connections;
}


int FakeSessionFactory::probes(const std::string& endpoint) const
{
	std::lock_guard<std::mutex> lock(_state->mutex);
	auto it = _state->hosts.find(endpoint);
	return it == _state->hosts.end() ? 0 : it->second.probes;
}


int FakeSessionFactory::live(const std::string& endpoint) const
{
	std::lock_guard<std::mutex> lock(_state->mutex);
	auto it = _state->hosts.find(endpoint);
	return it == _state->hosts.end() ? 0 : it->second.live;
}


int FakeSessionFactory::totalOpens() const
{
	std::lock_guard<std::mutex> lock(_state->mutex);
	int total = 0;
	for (const auto& host: _state->hosts) total += host.second.opens;
	return total;
}


int FakeSessionFactory::totalLive() const
{
	std::lock_guard<std::mutex> lock(_state->mutex);
	int total = 0;
	for (const auto& host: _state->hosts) total += host.second.live;
	return total;
}


int FakeSessionFactory::cancelled() const
{
	std::lock_guard<std::mutex> lock(_state->mutex);
	return _state->cancelled;
}


void FakeSessionFactory::resetCounters()
{
	std::lock_guard<std::mutex> lock(_state->mutex);
	for (auto& host: _state->hosts)
	{
		host.second.opens = 0;
		host.second.connections = 0;
		host.second.probes = 0;
	}
	_state->cancelled = 0;
}


Session::Ptr FakeSessionFactory::open(const BlueTuskHostEndpoint& endpoint, const ConnectionSettings& settings)
{
	return openFake(_state, endpoint, settings, nullptr);
}


Session::Ptr FakeSessionFactory::openCancellable(const BlueTuskHostEndpoint& endpoint, const ConnectionSettings& settings,
	const OpenCancellation& cancellation)
{
	return openFake(_state, endpoint, settings, &cancellation);
}

} } // namespace BlueTusk::Test
