//
// PolicyCallScope.cpp
//
// Library: BlueTusk/Routing
//

#include "BlueTusk/PolicyCallScope.h"
#include "PolicyCallBound.h"

namespace BlueTusk {

void PolicyCallScope::run(const SecretRedactor& redactor, const Poco::Timespan& timeout, const std::function<void()>& call)
{
	Detail::PolicyDeadline::Scope scope(Poco::Timespan(), timeout, redactor, Detail::PolicyDeadline::Kind::Creation);
	call();
}

} // namespace BlueTusk
