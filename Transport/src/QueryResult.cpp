//
// QueryResult.cpp
//
// Library: BlueTusk/Transport
//

#include "BlueTusk/QueryResult.h"
#include <cctype>

namespace BlueTusk {

Poco::UInt64 QueryResult::rowsAffected() const
{
	std::size_t end = commandTag.size();
	std::size_t begin = end;
	while (begin > 0 && std::isdigit(static_cast<unsigned char>(commandTag[begin - 1]))) --begin;
	if (begin == end || (begin > 0 && commandTag[begin - 1] != ' ')) return 0;
	return std::stoull(commandTag.substr(begin));
}


int QueryResult::columnIndex(const std::string& name) const
{
	for (std::size_t i = 0; i < columns.size(); ++i)
		if (columns[i].name == name) return static_cast<int>(i);
	return -1;
}

} // namespace BlueTusk
