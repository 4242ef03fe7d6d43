//
// TargetSessionAttributes.h
//
// Library: BlueTusk/Foundation
//
// The target session attributes and the server roles, with their canonical names. The TLS and
// authentication modes are ConnectionSettings' values (ConnectionSettings.h).
//

#ifndef BlueTusk_TargetSessionAttributes_INCLUDED
#define BlueTusk_TargetSessionAttributes_INCLUDED

#include "BlueTusk/Foundation.h"
#include <string>
#include <vector>

namespace BlueTusk {

enum class TargetSessionAttributes
	/// Which kind of server a session must reach (PostgreSQL docs 34.1.2, target_session_attrs;
	/// Npgsql's Target Session Attributes). Classification rules: doc/routing.md.
{
	Any,           /// "any"
	Primary,       /// "primary"
	Standby,       /// "standby"
	PreferPrimary, /// "prefer-primary"
	PreferStandby, /// "prefer-standby"
	ReadWrite,     /// "read-write"
	ReadOnly       /// "read-only"
};

BlueTusk_Foundation_API std::string toString(TargetSessionAttributes target);
	/// The canonical name ("prefer-standby").

BlueTusk_Foundation_API TargetSessionAttributes parseTargetSessionAttributes(const std::string& text, const std::string& keyword = "Target Session Attributes");
	/// Parses a canonical name, case-insensitively; "preferstandby"/"prefer_standby" style spellings of
	/// Npgsql are accepted too. Throws BlueTuskConnectionStringException naming keyword and the accepted
	/// values for anything else.

BlueTusk_Foundation_API const std::vector<std::string>& targetSessionAttributesNames();
	/// The seven canonical names in declaration order.


enum class ServerRole
	/// What a server is, as learned after authentication (doc/routing.md).
{
	Unknown,         /// "unknown": not probed yet
	Primary,         /// "primary": not in recovery, read-write by default
	PrimaryReadOnly, /// "primary-read-only": not in recovery, default_transaction_read_only on
	Standby          /// "standby": in recovery (hot standby), always read-only
};

BlueTusk_Foundation_API std::string toString(ServerRole role);
	/// "unknown", "primary", "primary-read-only", "standby".

BlueTusk_Foundation_API ServerRole parseServerRole(const std::string& text);
	/// Inverse of toString(ServerRole); throws BlueTuskException for an unknown name.

} // namespace BlueTusk

#endif // BlueTusk_TargetSessionAttributes_INCLUDED
