//
// SubsystemFakes.cpp
//

#include "SubsystemFakes.h"
#include "BlueTusk/BlueTuskException.h"

namespace BlueTusk {
namespace Test {

namespace {

class FakeSession: public Session
{
public:
	FakeSession(const BlueTuskHostEndpoint& endpoint, ServerRole role, std::atomic<int>& live):
		_endpoint(endpoint), _role(role), _live(live)
	{
		++_live;
	}

	~FakeSession() override
	{
		close();
	}

	const BlueTuskHostEndpoint& endpoint() const override { return _endpoint; }
	std::string connectedAddress() const override { return _endpoint.toString(); }
	ServerRole role() const override { return _probed ? _role : ServerRole::Unknown; }
	ServerRole probeRole(bool) override { _probed = true; return _role; }
	bool isBroken() const override { return _closed; }
	TransactionStatus transactionStatus() const override { return TransactionStatus::Idle; }
	void reset(bool) override {}

	void close() override
	{
		if (!_closed)
		{
			_closed = true;
			--_live;
		}
	}

	std::vector<QueryResult> executeSimple(const std::string& sql) override
	{
		return {execute(sql, {})};
	}

	QueryResult execute(const std::string& sql, const std::vector<FieldValue>&) override
	{
		QueryResult result;
		ColumnDescription column;
		column.name = "endpoint";
		result.columns.push_back(column);
		result.rows.push_back({_endpoint.toString()});
		result.commandTag = sql.empty() ? "" : "SELECT 1";
		return result;
	}

	void cancel() override {}
	std::string parameterStatus(const std::string&) const override { return ""; }
	Poco::Timestamp createdAt() const override { return _created; }

private:
	BlueTuskHostEndpoint _endpoint;
	ServerRole _role;
	std::atomic<int>& _live;
	bool _probed = false;
	bool _closed = false;
	Poco::Timestamp _created;
};

} // namespace


void SubsystemFakeFactory::setRole(const std::string& endpoint, ServerRole role)
{
	std::lock_guard<std::mutex> lock(_mutex);
	_roles[endpoint] = role;
}


void SubsystemFakeFactory::setDown(const std::string& endpoint)
{
	std::lock_guard<std::mutex> lock(_mutex);
	_down[endpoint] = true;
}


Session::Ptr SubsystemFakeFactory::open(const BlueTuskHostEndpoint& endpoint, const ConnectionSettings&)
{
	ServerRole role = ServerRole::Primary;
	{
		std::lock_guard<std::mutex> lock(_mutex);
		const std::string key = endpoint.toString();
		if (_down.count(key)) throw BlueTuskTransportException("could not connect to " + key + ": refused");
		auto it = _roles.find(key);
		if (it != _roles.end()) role = it->second;
		++_opened[key];
	}
	return Session::Ptr(new FakeSession(endpoint, role, liveCount));
}


int SubsystemFakeFactory::opened(const std::string& endpoint) const
{
	std::lock_guard<std::mutex> lock(_mutex);
	auto it = _opened.find(endpoint);
	return it == _opened.end() ? 0 : it->second;
}


int SubsystemFakeFactory::live() const
{
	return liveCount.load();
}

} } // namespace BlueTusk::Test
