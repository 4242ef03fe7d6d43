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


SessionFactory::~SessionFactory()
{
}

} // namespace BlueTusk
