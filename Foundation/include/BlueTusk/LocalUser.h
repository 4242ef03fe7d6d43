//
// LocalUser.h
//
// Library: BlueTusk/Foundation
//
// The operating-system account the process runs as: its name and home directory, as libpq finds them.
//

#ifndef BlueTusk_LocalUser_INCLUDED
#define BlueTusk_LocalUser_INCLUDED

#include "BlueTusk/Foundation.h"
#include <string>
#include <sys/types.h>

namespace BlueTusk {

class BlueTusk_Foundation_API LocalUser
	/// Look-ups of the local user database (getpwuid_r). Every function is thread-safe and throws nothing.
{
public:
	static std::string name();
		/// The name of the effective user (geteuid()), as libpq's default for the user keyword
		/// (PostgreSQL docs 34.1.2, "user": "Defaults to be the same as the operating system name of the
		/// user running the application"); "" when the user database has no entry for it.

	static std::string nameOf(uid_t uid);
		/// The name of the account with this user id, or "" when there is none.

	static std::string homeDirectory(const std::string& home);
		/// home (the value of $HOME) when it is not empty, else the effective user's home directory from
		/// the user database, as libpq's pqGetHomeDirectory(); "" when neither is known. Without a trailing '/'
		/// added or removed.
};

} // namespace BlueTusk

#endif // BlueTusk_LocalUser_INCLUDED
