//
// Session.cpp
//
// Library: BlueTusk/Transport
//

#include "BlueTusk/Session.h"

namespace BlueTusk {

Session::~Session()
{
}


ServerRole Session::reportedRole() const
{
	const std::string hotStandby = parameterStatus("in_hot_standby");
	const std::string readOnly = parameterStatus("default_transaction_read_only");
	if (hotStandby.empty() || readOnly.empty()) return ServerRole::Unknown;
	if (hotStandby == "on") return ServerRole::Standby;
	if (readOnly == "on") return ServerRole::PrimaryReadOnly;
	return ServerRole::Primary;
}


bool Session::deferReset()
{
	return false;
}


bool Session::isResetPending() const
{
	return false;
}


SessionFactory::~SessionFactory()
{
}

} // namespace BlueTusk
