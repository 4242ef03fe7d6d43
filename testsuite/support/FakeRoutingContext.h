//
// FakeRoutingContext.h
//
// A RoutingContext whose sessions are FakeSessions of its own FakeWorld: what the unit tests of the router, the
// data sources and the subsystem start from.
//

#ifndef BlueTusk_Test_FakeRoutingContext_INCLUDED
#define BlueTusk_Test_FakeRoutingContext_INCLUDED

#include "FakeSession.h"
#include "BlueTusk/RoutingContext.h"
#include <memory>

namespace BlueTusk {
namespace Test {

struct FakeRoutingContext
{
	FakeWorld::Ptr world = std::make_shared<FakeWorld>();
	RoutingContext context{std::make_shared<FakeSessionFactory>(world)};
};

} } // namespace BlueTusk::Test

#endif // BlueTusk_Test_FakeRoutingContext_INCLUDED
