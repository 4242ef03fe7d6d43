//
// TargetSessionAttributes.cpp
//
// Library: BlueTusk/Foundation
//
// Canonical names of the target session attributes, server roles and SSL modes, and their parsers.
//

#include "BlueTusk/TargetSessionAttributes.h"
#include "BlueTusk/ConnectionSettings.h"
#include "BlueTusk/BlueTuskException.h"
#include "ValueText.h"
#include <algorithm>

namespace BlueTusk {

namespace {

const std::vector<std::string>& sslModeNames()
{
	static const std::vector<std::string> names = {"disable", "allow", "prefer", "require", "verify-ca", "verify-full"};
	return names;
}


const std::vector<std::string>& serverPoolingNames()
{
	static const std::vector<std::string> names = {"auto", "session", "transaction"};
	return names;
}


const std::vector<std::string>& channelBindingNames()
{
	static const std::vector<std::string> names = {"disable", "prefer", "require"};
	return names;
}


const std::vector<std::string>& authenticationMethodNames()
{
	static const std::vector<std::string> names = {"none", "password", "md5", "scram-sha-256", "gss", "sspi"};
	return names;
}


const std::vector<std::string>& sslCertModeNames()
{
	static const std::vector<std::string> names = {"disable", "allow", "require"};
	return names;
}


const std::vector<std::string>& tlsProtocolVersionNames()
{
	static const std::vector<std::string> names = {"", "TLSv1", "TLSv1.1", "TLSv1.2", "TLSv1.3"};
	return names;
}


const std::vector<std::string>& sslNegotiationNames()
{
	static const std::vector<std::string> names = {"postgres", "direct"};
	return names;
}


const std::vector<std::string>& gssEncModeNames()
{
	static const std::vector<std::string> names = {"disable", "prefer", "require"};
	return names;
}


const std::vector<std::string>& serverRoleNames()
{
	static const std::vector<std::string> names = {"unknown", "primary", "primary-read-only", "standby"};
	return names;
}


std::string normalizedName(const std::string& text)
	/// Lower case without '-', '_' and spaces, so "PreferStandby", "prefer_standby" and "prefer-standby"
	/// compare equal (Npgsql spells the enum members in Pascal case, libpq with hyphens).
{
	std::string result;
	for (char c: Detail::trim(text))
	{
		if (c == '-' || c == '_' || c == ' ') continue;
		result += Detail::asciiLower(c);
	}
	return result;
}


int findName(const std::vector<std::string>& names, const std::string& text)
	/// The index of text in names (normalized comparison), or -1.
{
	const std::string wanted = normalizedName(text);
	if (wanted.empty()) return -1;
	for (std::size_t i = 0; i < names.size(); ++i)
	{
		if (normalizedName(names[i]) == wanted) return static_cast<int>(i);
	}
	return -1;
}


[[noreturn]] void throwInvalid(const std::string& keyword, const std::string& text, const std::vector<std::string>& names)
{
	throw BlueTuskConnectionStringException(keyword + ": " + Detail::quoted(text) + " is not a valid value; accepted values: " +
		Detail::join(names, ", "));
}

template <typename Enumeration>
Enumeration parseEnumeration(const std::vector<std::string>& names, const std::string& text, const std::string& keyword)
	/// The value whose name (normalized) is text; BlueTuskConnectionStringException naming keyword otherwise.
{
	const int index = findName(names, text);
	if (index < 0) throwInvalid(keyword, text, names);
	return static_cast<Enumeration>(index);
}

} // namespace


std::string toString(TargetSessionAttributes target)
{
	return targetSessionAttributesNames().at(static_cast<std::size_t>(target));
}


TargetSessionAttributes parseTargetSessionAttributes(const std::string& text, const std::string& keyword)
{
	return parseEnumeration<TargetSessionAttributes>(targetSessionAttributesNames(), text, keyword);
}


const std::vector<std::string>& targetSessionAttributesNames()
{
	static const std::vector<std::string> names = {"any", "primary", "standby", "prefer-primary", "prefer-standby", "read-write", "read-only"};
	return names;
}


std::string toString(ServerRole role)
{
	return serverRoleNames().at(static_cast<std::size_t>(role));
}


ServerRole parseServerRole(const std::string& text)
{
	const int index = findName(serverRoleNames(), text);
	if (index < 0)
		throw BlueTuskException("unknown server role " + Detail::quoted(text) + "; accepted values: " + Detail::join(serverRoleNames(), ", "));
	return static_cast<ServerRole>(index);
}


std::string toString(SslMode mode)
{
	return sslModeNames().at(static_cast<std::size_t>(mode));
}


SslMode parseSslMode(const std::string& text, const std::string& keyword)
{
	return parseEnumeration<SslMode>(sslModeNames(), text, keyword);
}


std::string toString(ChannelBinding mode)
{
	return channelBindingNames().at(static_cast<std::size_t>(mode));
}


ChannelBinding parseChannelBinding(const std::string& text, const std::string& keyword)
{
	return parseEnumeration<ChannelBinding>(channelBindingNames(), text, keyword);
}


std::string toString(ServerPooling mode)
{
	return serverPoolingNames().at(static_cast<std::size_t>(mode));
}


ServerPooling parseServerPooling(const std::string& text, const std::string& keyword)
{
	return parseEnumeration<ServerPooling>(serverPoolingNames(), text, keyword);
}


std::string toString(AuthenticationMethod method)
{
	return authenticationMethodNames().at(static_cast<std::size_t>(method));
}


RequireAuth::RequireAuth()
{
}


RequireAuth RequireAuth::parse(const std::string& text, const std::string& keyword)
{
	RequireAuth result;
	if (Detail::trim(text).empty()) return result;
	bool first = true;
	for (const std::string& item: Detail::split(text, ','))
	{
		std::string name = Detail::trim(item);
		const bool negated = !name.empty() && name[0] == '!';
		if (negated) name = Detail::trim(name.substr(1));
		if (name.empty())
			throw BlueTuskConnectionStringException(keyword + ": empty method in the list " + Detail::quoted(text) +
				"; accepted methods: none, password, md5, scram-sha-256, gss, sspi (each may be negated with '!')");
		if (!first && negated != result._negated)
			throw BlueTuskConnectionStringException(keyword + ": negative and positive methods cannot be mixed in " + Detail::quoted(text) +
				" (write either \"scram-sha-256,none\" or \"!md5,!password\")");
		const int index = findName(authenticationMethodNames(), name);
		if (index < 0) throwInvalid(keyword, name, authenticationMethodNames());
		const auto method = static_cast<AuthenticationMethod>(index);
		if (std::find(result._methods.begin(), result._methods.end(), method) != result._methods.end())
			throw BlueTuskConnectionStringException(keyword + ": method \"" + BlueTusk::toString(method) + "\" is given more than once");
		result._methods.push_back(method);
		result._negated = negated;
		first = false;
	}
	std::sort(result._methods.begin(), result._methods.end());
	return result;
}


bool RequireAuth::allows(AuthenticationMethod method) const
{
	if (_methods.empty()) return true;
	const bool listed = std::find(_methods.begin(), _methods.end(), method) != _methods.end();
	return listed != _negated;
}


bool RequireAuth::empty() const
{
	return _methods.empty();
}


std::string RequireAuth::toString() const
{
	std::string text;
	for (AuthenticationMethod method: _methods)
	{
		if (!text.empty()) text += ",";
		text += (_negated ? "!" : "") + BlueTusk::toString(method);
	}
	return text;
}


bool RequireAuth::operator == (const RequireAuth& other) const
{
	return _methods == other._methods && _negated == other._negated;
}


bool RequireAuth::operator != (const RequireAuth& other) const
{
	return !(*this == other);
}



std::string toString(SslCertMode mode)
{
	return sslCertModeNames().at(static_cast<std::size_t>(mode));
}


SslCertMode parseSslCertMode(const std::string& text, const std::string& keyword)
{
	return parseEnumeration<SslCertMode>(sslCertModeNames(), text, keyword);
}


std::string toString(TlsProtocolVersion version)
{
	return tlsProtocolVersionNames().at(static_cast<std::size_t>(version));
}


TlsProtocolVersion parseTlsProtocolVersion(const std::string& text, const std::string& keyword)
{
	if (Detail::trim(text).empty()) return TlsProtocolVersion::None;
	const int index = findName(tlsProtocolVersionNames(), text);
	if (index < 0)
		throw BlueTuskConnectionStringException(keyword + ": " + Detail::quoted(text) + " is not a valid value; accepted values: "
			"TLSv1, TLSv1.1, TLSv1.2, TLSv1.3, or empty for no bound");
	return static_cast<TlsProtocolVersion>(index);
}


std::string toString(SslNegotiation negotiation)
{
	return sslNegotiationNames().at(static_cast<std::size_t>(negotiation));
}


SslNegotiation parseSslNegotiation(const std::string& text, const std::string& keyword)
{
	return parseEnumeration<SslNegotiation>(sslNegotiationNames(), text, keyword);
}


std::string toString(GssEncMode mode)
{
	return gssEncModeNames().at(static_cast<std::size_t>(mode));
}


GssEncMode parseGssEncMode(const std::string& text, const std::string& keyword)
{
	return parseEnumeration<GssEncMode>(gssEncModeNames(), text, keyword);
}

} // namespace BlueTusk
