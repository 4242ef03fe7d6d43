//
// ConnectionState.cpp
//
// Library: BlueTusk/Routing
//

#include "ConnectionState.h"

namespace BlueTusk {
namespace Detail {

ConnectionState::~ConnectionState()
{
	release();
}


void ConnectionState::release() noexcept
{
	if (!entry) return;
	EndpointPool* pool = entry->pool;
	bool broken = !entry->session || entry->session->isBroken();
	if (pool)
	{
		pool->release(std::move(entry), broken);
	}
	else
	{
		if (entry->session) entry->session->close();
		entry.reset();
	}
}

} } // namespace BlueTusk::Detail
