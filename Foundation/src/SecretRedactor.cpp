//
// SecretRedactor.cpp
//
// Library: BlueTusk/Foundation
//

#include "BlueTusk/SecretRedactor.h"
#include "BlueTusk/BlueTuskException.h"
#include "SecretRedaction.h"
#include <algorithm>
#include <exception>
#include <memory>

namespace BlueTusk {

namespace {

const std::size_t minimumSecretLength = 3;


struct MessageAccess: public Poco::Exception
	/// Reaches Poco::Exception's protected message setter for any exception (a pointer to the member
	/// named through a derived class is a pointer to the base's member).
{
	static void set(Poco::Exception& exc, const std::string& text)
	{
		void (Poco::Exception::*setter)(const std::string&) = &MessageAccess::message;
		(exc.*setter)(text);
	}
};

} // namespace


SecretRedactor::SecretRedactor()
{
}


SecretRedactor::SecretRedactor(const std::vector<std::string>& secrets, bool complete):
	_complete(complete)
{
	// Longest first, each once. Sorted and made unique rather than searched one by one: a mangled
	// string can give thousands of candidates, and a search per candidate made building a redactor
	// quadratic (most of the connection-string fuzzer's time on such inputs).
	for (const std::string& secret: secrets)
	{
		if (secret.size() >= minimumSecretLength) _secrets.push_back(secret);
	}
	std::sort(_secrets.begin(), _secrets.end(), [](const std::string& a, const std::string& b) { return a.size() != b.size() ? a.size() > b.size() : a < b; });
	_secrets.erase(std::unique(_secrets.begin(), _secrets.end()), _secrets.end());
}


std::string SecretRedactor::redact(const std::string& text) const
{
	if (!_complete) return text.empty() ? text : std::string("***");
	if (_secrets.empty()) return Detail::maskUserInfo(text);
	return Detail::maskUserInfo(Detail::redactSecrets(text, _secrets));
}


void SecretRedactor::redact(Poco::Exception& exc) const
{
	for (Poco::Exception* current = &exc; current; current = const_cast<Poco::Exception*>(current->nested()))
	{
		// the nested chain is owned by exc (Poco clones it on copy): changing it in place is safe
		MessageAccess::set(*current, redact(current->message()));
		if (auto* own = dynamic_cast<BlueTuskException*>(current)) own->redactDetails(*this);
	}
}


void SecretRedactor::rethrow(const Poco::Exception& exc) const
{
	std::unique_ptr<Poco::Exception> copy(exc.clone());
	redact(*copy);
	copy->rethrow();
	throw Poco::BugcheckException("Poco::Exception::rethrow() returned"); // not reached
}


void SecretRedactor::rethrowCurrent() const
{
	try
	{
		throw;
	}
	catch (Poco::Exception& exc)
	{
		rethrow(exc);
	}
}


bool SecretRedactor::reveals(const std::string& text) const
{
	if (!_complete) return !text.empty();
	for (const std::string& secret: _secrets)
	{
		if (text.find(secret) != std::string::npos) return true;
	}
	return false;
}


bool SecretRedactor::complete() const
{
	return _complete;
}


const std::vector<std::string>& SecretRedactor::secrets() const
{
	return _secrets;
}

} // namespace BlueTusk
