//
// GssClient.cpp
//
// Library: BlueTusk/Transport
//

#include "GssClient.h"
#include "BlueTusk/BlueTuskException.h"
#if defined(BLUETUSK_HAVE_GSSAPI)
#include <gssapi/gssapi.h>
#include <gssapi/gssapi_krb5.h>
#endif

namespace BlueTusk {
namespace Detail {

#if defined(BLUETUSK_HAVE_GSSAPI)

namespace {

std::string statusText(OM_uint32 status, int type)
	/// gss_display_status's messages for one status code, joined with "; ".
{
	std::string text;
	OM_uint32 context = 0;
	do
	{
		OM_uint32 minor = 0;
		gss_buffer_desc message = GSS_C_EMPTY_BUFFER;
		if (gss_display_status(&minor, status, type, GSS_C_NO_OID, &context, &message) != GSS_S_COMPLETE) break;
		if (!text.empty()) text += "; ";
		text.append(static_cast<const char*>(message.value), message.length);
		gss_release_buffer(&minor, &message);
	}
	while (context != 0);
	return text;
}


std::string failure(OM_uint32 major, OM_uint32 minor)
{
	std::string text = statusText(major, GSS_C_GSS_CODE);
	const std::string detail = minor ? statusText(minor, GSS_C_MECH_CODE) : std::string();
	if (!detail.empty()) text += ": " + detail;
	return text;
}

} // namespace


struct GssClient::State
{
	gss_name_t target = GSS_C_NO_NAME;
	gss_ctx_id_t context = GSS_C_NO_CONTEXT;
};


bool GssClient::available()
{
	return true;
}


GssClient::GssClient(const std::string& service, const std::string& host, bool delegate):
	_state(new State),
	_delegate(delegate),
	_target(service + "@" + host)
{
	OM_uint32 minor = 0;
	gss_buffer_desc name;
	name.value = const_cast<char*>(_target.c_str());
	name.length = _target.size() + 1;
	const OM_uint32 major = gss_import_name(&minor, &name, GSS_C_NT_HOSTBASED_SERVICE, &_state->target);
	if (GSS_ERROR(major))
		throw BlueTuskAuthenticationException("GSSAPI: could not import the service name \"" + _target + "\" (Kerberos Service Name): " + failure(major, minor));
}


GssClient::~GssClient()
{
	OM_uint32 minor = 0;
	if (_state->context != GSS_C_NO_CONTEXT) gss_delete_sec_context(&minor, &_state->context, GSS_C_NO_BUFFER);
	if (_state->target != GSS_C_NO_NAME) gss_release_name(&minor, &_state->target);
}


std::string GssClient::step(const std::string& input)
{
	OM_uint32 minor = 0;
	gss_buffer_desc in;
	in.value = const_cast<char*>(input.data());
	in.length = input.size();
	gss_buffer_desc out = GSS_C_EMPTY_BUFFER;
	const OM_uint32 flags = GSS_C_MUTUAL_FLAG | (_delegate ? GSS_C_DELEG_FLAG : 0);
	const OM_uint32 major = gss_init_sec_context(&minor, GSS_C_NO_CREDENTIAL, &_state->context, _state->target, GSS_C_NO_OID, flags, 0,
		GSS_C_NO_CHANNEL_BINDINGS, input.empty() ? GSS_C_NO_BUFFER : &in, nullptr, &out, nullptr, nullptr);
	std::string token;
	if (out.length > 0) token.assign(static_cast<const char*>(out.value), out.length);
	OM_uint32 ignored = 0;
	gss_release_buffer(&ignored, &out);
	if (GSS_ERROR(major))
		throw BlueTuskAuthenticationException("GSSAPI: could not initiate a security context for \"" + _target + "\": " + failure(major, minor));
	_complete = major == GSS_S_COMPLETE;
	return token;
}

#else

struct GssClient::State
{
};


bool GssClient::available()
{
	return false;
}


GssClient::GssClient(const std::string& service, const std::string& host, bool):
	_target(service + "@" + host)
{
	throw BlueTuskAuthenticationException("GSSAPI authentication for \"" + _target + "\" is not available: BlueTusk was built without "
		"the system GSS-API library (install libkrb5-dev and build again)");
}


GssClient::~GssClient()
{
}


std::string GssClient::step(const std::string&)
{
	return std::string();
}

#endif


bool GssClient::complete() const
{
	return _complete;
}

} } // namespace BlueTusk::Detail
