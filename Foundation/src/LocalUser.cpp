//
// LocalUser.cpp
//
// Library: BlueTusk/Foundation
//

#include "BlueTusk/LocalUser.h"
#include <pwd.h>
#include <unistd.h>
#include <vector>

namespace BlueTusk {

namespace {

template <typename Field>
std::string passwdField(uid_t uid, Field field)
{
	std::vector<char> buffer(16384);
	struct passwd entry;
	struct passwd* result = nullptr;
	if (getpwuid_r(uid, &entry, buffer.data(), buffer.size(), &result) != 0 || !result) return std::string();
	const char* text = field(*result);
	return text ? std::string(text) : std::string();
}

} // namespace


std::string LocalUser::name()
{
	return nameOf(geteuid());
}


std::string LocalUser::nameOf(uid_t uid)
{
	return passwdField(uid, [](const struct passwd& entry) { return entry.pw_name; });
}


std::string LocalUser::homeDirectory(const std::string& home)
{
	if (!home.empty()) return home;
	return passwdField(geteuid(), [](const struct passwd& entry) { return entry.pw_dir; });
}

} // namespace BlueTusk
