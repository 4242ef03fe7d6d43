//
// ProtocolSession.cpp
//
// Library: BlueTusk/Transport
//
// (First version: the interface compiles; the protocol lands in the next commits.)
//

#include "BlueTusk/ProtocolSession.h"
#include "Poco/Exception.h"

namespace BlueTusk {

ProtocolSession::ProtocolSession(const BlueTuskHostEndpoint& endpoint):
	_endpoint(endpoint)
{
}


ProtocolSession::~ProtocolSession()
{
	close();
}


void ProtocolSession::startup(Poco::Net::StreamSocket&, const Poco::Net::SocketAddress& address, const ConnectionSettings&, const Deadline&)
{
	_address = address;
	throw Poco::NotImplementedException("ProtocolSession::startup");
}


const BlueTuskHostEndpoint& ProtocolSession::endpoint() const { return _endpoint; }
std::string ProtocolSession::connectedAddress() const { return _address.toString(); }
ServerRole ProtocolSession::role() const { return _role; }
ServerRole ProtocolSession::probeRole(bool) { throw Poco::NotImplementedException("probeRole"); }
bool ProtocolSession::isBroken() const { return _broken; }
TransactionStatus ProtocolSession::transactionStatus() const { return _transactionStatus; }
void ProtocolSession::reset(bool) { throw Poco::NotImplementedException("reset"); }
void ProtocolSession::close() { _closed = true; _broken = true; }
std::vector<QueryResult> ProtocolSession::executeSimple(const std::string&) { throw Poco::NotImplementedException("executeSimple"); }
QueryResult ProtocolSession::execute(const std::string&, const std::vector<FieldValue>&) { throw Poco::NotImplementedException("execute"); }
void ProtocolSession::cancel() {}
std::string ProtocolSession::parameterStatus(const std::string& name) const { auto it = _parameters.find(name); return it == _parameters.end() ? std::string() : it->second; }
Poco::Timestamp ProtocolSession::createdAt() const { return _createdAt; }
const std::map<std::string, std::string>& ProtocolSession::parameterStatuses() const { return _parameters; }
void ProtocolSession::setNoticeHandler(const NoticeHandler& handler) { _noticeHandler = handler; }
void ProtocolSession::setCommandTimeout(const Poco::Timespan& timeout) { _commandTimeout = timeout; }
Poco::Timespan ProtocolSession::commandTimeout() const { return _commandTimeout; }
bool ProtocolSession::isTls() const { return _tls; }
const std::string& ProtocolSession::authenticationMethod() const { return _authenticationMethod; }
Poco::Int32 ProtocolSession::backendProcessId() const { return _processId; }
const AddressAttemptList& ProtocolSession::addressAttempts() const { return _attempts; }
void ProtocolSession::setAddressAttempts(const AddressAttemptList& attempts) { _attempts = attempts; }
void ProtocolSession::markBroken() { _broken = true; }

} // namespace BlueTusk
