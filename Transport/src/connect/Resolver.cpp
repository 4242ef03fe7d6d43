//
// Resolver.cpp
//
// Library: BlueTusk/Transport
//

#include "Resolver.h"
#include "SystemResolver.h"

namespace BlueTusk {

Resolver::~Resolver()
{
}


Resolver::Ptr Resolver::defaultResolver()
{
	static const Resolver::Ptr resolver = std::make_shared<SystemResolver>();
	return resolver;
}

} // namespace BlueTusk
