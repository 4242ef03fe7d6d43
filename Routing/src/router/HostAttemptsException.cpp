//
// HostAttemptsException.cpp
//
// Library: BlueTusk/Routing
//

#include "BlueTusk/HostAttemptsException.h"
#include "BlueTusk/SecretRedactor.h"
#include <algorithm>
#include <typeinfo>

namespace BlueTusk {

HostAttemptsException::HostAttemptsException(const std::string& msg, const HostAttemptList& attempts, int passes):
	BlueTuskNoAcceptableHostException(msg),
	_attempts(attempts),
	_passes(std::max(1, passes))
{
}


HostAttemptsException::HostAttemptsException(const std::string& msg, const Poco::Exception& nested,
	const HostAttemptList& attempts, int passes):
	BlueTuskNoAcceptableHostException(msg, nested),
	_attempts(attempts),
	_passes(std::max(1, passes))
{
}


HostAttemptsException::HostAttemptsException(const HostAttemptsException& exc):
	BlueTuskNoAcceptableHostException(exc),
	_attempts(exc._attempts),
	_passes(exc._passes)
{
}


HostAttemptsException::~HostAttemptsException() noexcept
{
}


HostAttemptsException& HostAttemptsException::operator = (const HostAttemptsException& exc)
{
	BlueTuskNoAcceptableHostException::operator = (exc);
	_attempts = exc._attempts;
	_passes = exc._passes;
	return *this;
}


void HostAttemptsException::redactDetails(const SecretRedactor& redactor)
{
	BlueTuskNoAcceptableHostException::redactDetails(redactor);
	for (HostAttempt& attempt: _attempts)
	{
		if (redactor.reveals(attempt.endpoint.host()))
			attempt.endpoint = BlueTuskHostEndpoint(redactor.redact(attempt.endpoint.host()), attempt.endpoint.port(), attempt.endpoint.address());
		attempt.detail = redactor.redact(attempt.detail);
		attempt.nestedText = redactor.redact(attempt.nestedText);
	}
}


const char* HostAttemptsException::name() const noexcept
{
	return BlueTuskNoAcceptableHostException::name();
}


const char* HostAttemptsException::className() const noexcept
{
	return typeid(*this).name();
}


Poco::Exception* HostAttemptsException::clone() const
{
	return new HostAttemptsException(*this);
}


void HostAttemptsException::rethrow() const
{
	throw *this;
}


const HostAttemptList& HostAttemptsException::attempts() const
{
	return _attempts;
}


int HostAttemptsException::passes() const
{
	return _passes;
}

} // namespace BlueTusk
