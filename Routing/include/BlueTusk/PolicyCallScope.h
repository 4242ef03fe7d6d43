//
// PolicyCallScope.h
//
// Library: BlueTusk/Routing
//
// The redactor and deadline of a site policy's calls made outside any data source, e.g. the configure() calls
// of the DataSourceSubsystem (doc/plugins.md, "Configuration"; doc/plugin-calls.md).
//

#ifndef BlueTusk_PolicyCallScope_INCLUDED
#define BlueTusk_PolicyCallScope_INCLUDED

#include "BlueTusk/Foundation.h"
#include "BlueTusk/SecretRedactor.h"
#include "Poco/Timespan.h"
#include <functional>

namespace BlueTusk {

class BlueTusk_Routing_API PolicyCallScope
	/// Runs calls into site policies as a data source's creation runs them.
{
public:
	static void run(const SecretRedactor& redactor, const Poco::Timespan& timeout, const std::function<void()>& call);
		/// Runs call on this thread. What a guarded site policy's call made in it logs or throws on failure
		/// passes redactor (a data source's own secrets: its connection string's password, ...), not only
		/// the default redactor (user info); its bounded calls end within timeout from now (a data source's
		/// Timeout; 15 s with 0), their messages naming "the data source creation's deadline". Rethrows what
		/// call throws. Thread-safe (the scope is this thread's only).
};

} // namespace BlueTusk

#endif // BlueTusk_PolicyCallScope_INCLUDED
