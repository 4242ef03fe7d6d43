//
// BlueTuskException.cpp
//
// Library: BlueTusk/Foundation
//

#include "BlueTusk/BlueTuskException.h"
#include "BlueTusk/SecretRedactor.h"
#include <typeinfo>

namespace BlueTusk {

//
// BlueTuskException (POCO_IMPLEMENT_EXCEPTION spelt out, plus what() and redactDetails())
//

BlueTuskException::BlueTuskException(int code): Poco::Exception(code)
{
}


BlueTuskException::BlueTuskException(const std::string& msg, int code): Poco::Exception(msg, code)
{
}


BlueTuskException::BlueTuskException(const std::string& msg, const std::string& arg, int code): Poco::Exception(msg, arg, code)
{
}


BlueTuskException::BlueTuskException(const std::string& msg, const Poco::Exception& nested, int code): Poco::Exception(msg, nested, code)
{
}


BlueTuskException::BlueTuskException(const BlueTuskException& exc): Poco::Exception(exc)
{
}


BlueTuskException::~BlueTuskException() noexcept
{
}


BlueTuskException& BlueTuskException::operator = (const BlueTuskException& exc)
{
	Poco::Exception::operator = (exc);
	return *this;
}


const char* BlueTuskException::name() const noexcept
{
	return "BlueTusk exception";
}


const char* BlueTuskException::className() const noexcept
{
	return typeid(*this).name();
}


Poco::Exception* BlueTuskException::clone() const
{
	return new BlueTuskException(*this);
}


void BlueTuskException::rethrow() const
{
	throw *this;
}


const char* BlueTuskException::what() const noexcept
{
	try
	{
		_what = displayText();
		return _what.c_str();
	}
	catch (...)
	{
		return name();
	}
}


void BlueTuskException::addContext(const std::string& context)
{
	if (context.empty() || message().find(context) != std::string::npos) return;
	message(message() + " (" + context + ")");
}


void BlueTuskException::redactDetails(const SecretRedactor&)
{
}


POCO_IMPLEMENT_EXCEPTION(BlueTuskConnectionStringException, BlueTuskException, "Invalid connection string")
POCO_IMPLEMENT_EXCEPTION(BlueTuskAuthenticationException, BlueTuskException, "Authentication failed")
POCO_IMPLEMENT_EXCEPTION(BlueTuskNoAcceptableHostException, BlueTuskException, "No acceptable host")
POCO_IMPLEMENT_EXCEPTION(BlueTuskPoolTimeoutException, BlueTuskException, "Pool checkout timed out")
POCO_IMPLEMENT_EXCEPTION(BlueTuskPluginException, BlueTuskException, "Plugin error")
POCO_IMPLEMENT_EXCEPTION(BlueTuskProtocolException, BlueTuskException, "Protocol error")
POCO_IMPLEMENT_EXCEPTION(BlueTuskSessionBrokenException, BlueTuskException, "Session broken")
POCO_IMPLEMENT_EXCEPTION(BlueTuskTypeException, BlueTuskException, "Type conversion error")
POCO_IMPLEMENT_EXCEPTION(BlueTuskUsageException, BlueTuskException, "Invalid use")
POCO_IMPLEMENT_EXCEPTION(BlueTuskTransactionRolledBackException, BlueTuskException, "Transaction rolled back")
POCO_IMPLEMENT_EXCEPTION(BlueTuskCommitOutcomeUnknownException, BlueTuskException, "Commit outcome unknown")


//
// BlueTuskTransportException
//

namespace {

std::string describeAttempts(const AddressAttemptList& attempts, const std::string& separator)
{
	std::string text;
	for (const auto& attempt: attempts)
	{
		if (!text.empty()) text += separator;
		text += attempt.toString();
	}
	return text;
}

} // namespace


BlueTuskTransportException::BlueTuskTransportException(int code): BlueTuskException(code)
{
}


BlueTuskTransportException::BlueTuskTransportException(const std::string& msg, int code):
	BlueTuskException(msg, code)
{
}


BlueTuskTransportException::BlueTuskTransportException(const std::string& msg, const std::string& arg, int code):
	BlueTuskException(msg, arg, code)
{
}


BlueTuskTransportException::BlueTuskTransportException(const std::string& msg, const Poco::Exception& nested, int code):
	BlueTuskException(msg, nested, code)
{
}


BlueTuskTransportException::BlueTuskTransportException(const std::string& endpoint, const AddressAttemptList& attempts):
	BlueTuskException("could not connect to " + endpoint + ": " + (attempts.empty() ? std::string("no address to try") : describeAttempts(attempts, "; ")),
		BlueTuskException("per-address diagnostics for " + endpoint + ":\n" + describeAttempts(attempts, "\n"))),
	_endpoint(endpoint),
	_attempts(attempts)
{
}


BlueTuskTransportException::BlueTuskTransportException(const BlueTuskTransportException& exc):
	BlueTuskException(exc),
	_endpoint(exc._endpoint),
	_attempts(exc._attempts)
{
}


BlueTuskTransportException::~BlueTuskTransportException() noexcept
{
}


BlueTuskTransportException& BlueTuskTransportException::operator = (const BlueTuskTransportException& exc)
{
	BlueTuskException::operator = (exc);
	_endpoint = exc._endpoint;
	_attempts = exc._attempts;
	return *this;
}


const char* BlueTuskTransportException::name() const noexcept
{
	return "Transport failure";
}


const char* BlueTuskTransportException::className() const noexcept
{
	return typeid(*this).name();
}


Poco::Exception* BlueTuskTransportException::clone() const
{
	return new BlueTuskTransportException(*this);
}


void BlueTuskTransportException::rethrow() const
{
	throw *this;
}


const AddressAttemptList& BlueTuskTransportException::attempts() const
{
	return _attempts;
}


const std::string& BlueTuskTransportException::endpoint() const
{
	return _endpoint;
}


void BlueTuskTransportException::redactDetails(const SecretRedactor& redactor)
{
	BlueTuskException::redactDetails(redactor);
	_endpoint = redactor.redact(_endpoint);
	for (AddressAttempt& attempt: _attempts)
	{
		attempt.address = redactor.redact(attempt.address);
		attempt.errorText = redactor.redact(attempt.errorText);
	}
}


//
// BlueTuskServerException
//

namespace {

std::string formatFields(const BlueTuskServerException::Fields& f)
{
	std::string text = (f.severity.empty() ? std::string("ERROR") : f.severity) + ": " + f.message;
	if (!f.sqlState.empty()) text += " (SQLSTATE " + f.sqlState + ")";
	if (!f.detail.empty()) text += "; DETAIL: " + f.detail;
	if (!f.hint.empty()) text += "; HINT: " + f.hint;
	if (f.position > 0) text += "; at character " + std::to_string(f.position);
	if (!f.context.empty()) text += "; CONTEXT: " + f.context;
	return text;
}

} // namespace


BlueTuskServerException::BlueTuskServerException(int code): BlueTuskException(code)
{
}


BlueTuskServerException::BlueTuskServerException(const std::string& msg, int code): BlueTuskException(msg, code)
{
	_fields.message = msg;
}


BlueTuskServerException::BlueTuskServerException(const std::string& msg, const std::string& arg, int code):
	BlueTuskException(msg, arg, code)
{
	_fields.message = message();
}


BlueTuskServerException::BlueTuskServerException(const std::string& msg, const Poco::Exception& nested, int code):
	BlueTuskException(msg, nested, code)
{
	_fields.message = msg;
}


BlueTuskServerException::BlueTuskServerException(const Fields& fields, bool sessionUsable):
	BlueTuskException(formatFields(fields)),
	_fields(fields),
	_sessionUsable(sessionUsable)
{
}


BlueTuskServerException::BlueTuskServerException(const BlueTuskServerException& exc):
	BlueTuskException(exc),
	_fields(exc._fields),
	_sessionUsable(exc._sessionUsable)
{
}


BlueTuskServerException::~BlueTuskServerException() noexcept
{
}


BlueTuskServerException& BlueTuskServerException::operator = (const BlueTuskServerException& exc)
{
	BlueTuskException::operator = (exc);
	_fields = exc._fields;
	_sessionUsable = exc._sessionUsable;
	return *this;
}


void BlueTuskServerException::redactDetails(const SecretRedactor& redactor)
{
	BlueTuskException::redactDetails(redactor);
	for (std::string* text: {&_fields.message, &_fields.detail, &_fields.hint, &_fields.context,
		&_fields.schema, &_fields.table, &_fields.column, &_fields.constraint})
	{
		*text = redactor.redact(*text);
	}
}


const char* BlueTuskServerException::name() const noexcept
{
	return "Server error";
}


const char* BlueTuskServerException::className() const noexcept
{
	return typeid(*this).name();
}


Poco::Exception* BlueTuskServerException::clone() const
{
	return new BlueTuskServerException(*this);
}


void BlueTuskServerException::rethrow() const
{
	throw *this;
}


const BlueTuskServerException::Fields& BlueTuskServerException::fields() const
{
	return _fields;
}


const std::string& BlueTuskServerException::sqlState() const
{
	return _fields.sqlState;
}


const std::string& BlueTuskServerException::severity() const
{
	return _fields.severity;
}


bool BlueTuskServerException::sessionUsable() const
{
	return _sessionUsable;
}


bool BlueTuskServerException::isAvailabilityError() const
{
	const std::string& s = _fields.sqlState;
	return s == "57P01" || s == "57P02" || s == "57P03" || s == "53300" || s.compare(0, 2, "08") == 0;
}


bool BlueTuskServerException::isAuthenticationError() const
{
	return _fields.sqlState.compare(0, 2, "28") == 0;
}


bool isSessionUsable(const Poco::Exception& exc)
{
	if (dynamic_cast<const BlueTuskTypeException*>(&exc) || dynamic_cast<const BlueTuskUsageException*>(&exc)) return true;
	const auto* serverError = dynamic_cast<const BlueTuskServerException*>(&exc);
	return serverError && serverError->sessionUsable();
}


} // namespace BlueTusk
