//
// DataException.cpp
//
// Library: BlueTusk/Data
//

#include "BlueTusk/Data/DataException.h"
#include <typeinfo>

namespace BlueTusk {
namespace Data {

ConnectionException::ConnectionException(const std::string& message, const Poco::Exception& cause):
	Poco::Data::ConnectionFailedException(message, cause)
{
}


ConnectionException::ConnectionException(const std::string& message): Poco::Data::ConnectionFailedException(message)
{
}


ConnectionException::ConnectionException(const ConnectionException& other): Poco::Data::ConnectionFailedException(other)
{
}


ConnectionException::~ConnectionException() noexcept
{
}


ConnectionException& ConnectionException::operator = (const ConnectionException& other)
{
	Poco::Data::ConnectionFailedException::operator = (other);
	return *this;
}


const char* ConnectionException::name() const noexcept
{
	return "BlueTusk connection failed";
}


const char* ConnectionException::className() const noexcept
{
	return typeid(*this).name();
}


Poco::Exception* ConnectionException::clone() const
{
	return new ConnectionException(*this);
}


void ConnectionException::rethrow() const
{
	throw *this;
}


StatementException::StatementException(const std::string& message, const BlueTuskServerException& cause):
	Poco::Data::ExecutionException(message, cause),
	_fields(cause.fields()),
	_sessionUsable(cause.sessionUsable())
{
}


StatementException::StatementException(const StatementException& other):
	Poco::Data::ExecutionException(other),
	_fields(other._fields),
	_sessionUsable(other._sessionUsable)
{
}


StatementException::~StatementException() noexcept
{
}


StatementException& StatementException::operator = (const StatementException& other)
{
	Poco::Data::ExecutionException::operator = (other);
	_fields = other._fields;
	_sessionUsable = other._sessionUsable;
	return *this;
}


const char* StatementException::name() const noexcept
{
	return "BlueTusk statement failed";
}


const char* StatementException::className() const noexcept
{
	return typeid(*this).name();
}


Poco::Exception* StatementException::clone() const
{
	return new StatementException(*this);
}


void StatementException::rethrow() const
{
	throw *this;
}


const std::string& StatementException::sqlState() const
{
	return _fields.sqlState;
}


const BlueTuskServerException::Fields& StatementException::fields() const
{
	return _fields;
}


bool StatementException::sessionUsable() const
{
	return _sessionUsable;
}

} } // namespace BlueTusk::Data
