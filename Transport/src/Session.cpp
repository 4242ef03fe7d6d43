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
