//
// AuthenticationPolicy.cpp
//
// Library: BlueTusk/Transport
//

#include "AuthenticationPolicy.h"
#include "BlueTusk/BlueTuskException.h"

namespace BlueTusk {
namespace Detail {

namespace {

AuthenticationMethod methodOf(Poco::Int32 code)
{
	switch (code)
	{
	case 3:  return AuthenticationMethod::Password;
	case 5:  return AuthenticationMethod::Md5;
	case 10: return AuthenticationMethod::ScramSha256;
	case 7:  return AuthenticationMethod::Gss;
	default: return AuthenticationMethod::None;
	}
}


std::string describe(Poco::Int32 code)
	/// What the server asked for, in libpq's words.
{
	switch (code)
	{
	case 3:  return "a cleartext password";
	case 5:  return "a hashed password (MD5)";
	case 10: return "SASL (SCRAM-SHA-256) authentication";
	case 7:  return "GSSAPI authentication";
	default: return "authentication request " + std::to_string(code);
	}
}



Poco::Int32 codeOf(const std::string& begun)
{
	if (begun == "cleartext") return 3;
	if (begun == "MD5") return 5;
	if (begun.compare(0, 5, "SCRAM") == 0) return 10;
	if (begun == "GSSAPI") return 7;
	return 0;
}

} // namespace


void AuthenticationPolicy::request(const ConnectionSettings& settings, const std::string& where, Poco::Int32 code, const std::string& begun)
{
	const Poco::Int32 begunCode = codeOf(begun);
	if (begunCode != 0)
	{
		throw BlueTuskAuthenticationException("the server at " + where + " asked for " + describe(code) + " after " +
			describe(begunCode) + " had begun: a change of authentication method in the middle of an exchange is refused "
			"(a downgrade attack, or a misconfigured proxy)");
	}
	if (!settings.requireAuth.allows(methodOf(code)))
	{
		throw BlueTuskAuthenticationException("authentication method requirement \"" + settings.requireAuth.toString() +
			"\" (Require Auth) failed: the server at " + where + " asked for " + describe(code));
	}
	if (code != 10 && settings.channelBinding == ChannelBinding::Require)
	{
		throw BlueTuskAuthenticationException("Channel Binding=require, but the server at " + where + " asked for " +
			describe(code) + ", which has no channel binding (it needs SCRAM-SHA-256-PLUS over TLS)");
	}
}


ScramClient::ChannelBinding AuthenticationPolicy::binding(const ConnectionSettings& settings, const std::string& where, bool tls,
	bool offersPlus, bool haveCertificateHash)
{
	const bool canBind = tls && haveCertificateHash && settings.channelBinding != ChannelBinding::Disable;
	if (canBind && offersPlus) return ScramClient::TLS_SERVER_END_POINT;
	if (settings.channelBinding == ChannelBinding::Require)
	{
		throw BlueTuskAuthenticationException(std::string("Channel Binding=require, but ") + (tls ?
			"the server at " + where + " does not offer SCRAM-SHA-256-PLUS" :
			"the session to " + where + " does not use TLS (channel binding needs it; check SSL Mode)"));
	}
	return canBind ? ScramClient::SUPPORTED : ScramClient::NONE;
}


void AuthenticationPolicy::completed(const ConnectionSettings& settings, const std::string& where, const std::string& begun)
{
	if (codeOf(begun) == 0 && !settings.requireAuth.allows(AuthenticationMethod::None))
	{
		throw BlueTuskAuthenticationException("authentication method requirement \"" + settings.requireAuth.toString() +
			"\" (Require Auth) failed: the server at " + where + " did not ask the client to authenticate");
	}
	if (settings.channelBinding == ChannelBinding::Require && begun != "SCRAM-SHA-256-PLUS")
	{
		throw BlueTuskAuthenticationException("Channel Binding=require, but the server at " + where +
			" authenticated the client without channel binding");
	}
}

} } // namespace BlueTusk::Detail
