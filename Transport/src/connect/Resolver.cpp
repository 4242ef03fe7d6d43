//
// Resolver.cpp
//
// Library: BlueTusk/Transport
//

#include "BlueTusk/Resolver.h"
#include "BlueTusk/SystemResolver.h"

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
