//
// UrlTokenizer.h
//
// Library: BlueTusk/Foundation
//
// Splits a connection URI ("postgresql://user:secret@db-a:5432,db-b:6432/app?sslmode=require") into
// keyword/value pairs with libpq's keyword names.
//

#ifndef BlueTusk_Detail_UrlTokenizer_INCLUDED
#define BlueTusk_Detail_UrlTokenizer_INCLUDED

#include "KeywordValue.h"

namespace BlueTusk {
namespace Detail {

bool isConnectionUrl(const std::string& text);
	/// True when text (after leading white space) begins with "postgresql://" or "postgres://",
	/// in any letter case.

bool looksLikeMistypedUrl(const std::string& text);
	/// True when text begins with "postgresql:" or "postgres:" (any letter case, after white space) but
	/// is not a URL (isConnectionUrl()): a scheme with a missing '/'.

std::string nearMissUrlScheme(const std::string& text);
	/// When text is not a URL but begins (after white space) like one: a scheme-like run of 1 to 32
	/// characters with no white space, '=', ';', ':', '@', '/' or quote, followed by ":/"
	/// ("postgre\x01sql:/", "pg://", "postgresq://"), that run with its ":/"; else empty. No keyword/value
	/// string begins so (its first keyword is followed by '='), so it is refused as "not a valid URL"
	/// rather than read as an unknown keyword that would echo the user info.

KeywordValueList tokenizeUrl(const std::string& text);
	/// The rules of PostgreSQL docs 34.1.1.2 "Connection URIs":
	///   postgresql://[user[:password]@][host[:port][,host[:port]...]][/dbname][?param=value[&...]]
	/// gives, in this order: user (when not empty), password (when ':' is present), host (the host list
	/// in the Host keyword's syntax; a host with its own port is written "name:port", or "[host]:port" when
	/// the host contains ':' or is a socket directory), dbname (when not empty), then each query
	/// parameter. Every component is percent-decoded; "[v6]" and "[v6]:port" are accepted; a socket
	/// directory is written percent-encoded ("%2Ftmp") or as a host query parameter. As in libpq, no host
	/// gives no host pair (the default socket directory, ConnectionKeywords::finish()); a single empty
	/// host with a port (":12345") gives only a port pair; an empty host in a longer list is the default
	/// socket directory (defaultSocketDirectory()); an empty port ("host:") is no port.
	/// Throws BlueTuskConnectionStringException naming the position for a bad percent escape, %00, an
	/// unclosed '[', text after ']', a query parameter without '=', or a decoded host containing
	/// ',', '[' or ']'. Messages never quote the text.

} } // namespace BlueTusk::Detail

#endif // BlueTusk_Detail_UrlTokenizer_INCLUDED
