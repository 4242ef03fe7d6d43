//
// NoticeHandler.h
//
// Library: BlueTusk/Transport
//
// The callback that receives a server's NoticeResponse messages.
//

#ifndef BlueTusk_NoticeHandler_INCLUDED
#define BlueTusk_NoticeHandler_INCLUDED

#include "BlueTusk/BlueTuskException.h"
#include <functional>

namespace BlueTusk {

using NoticeHandler = std::function<void(const BlueTuskServerException::Fields& notice)>;
	/// Called with the fields of each NoticeResponse (PostgreSQL docs 55.8: severity "NOTICE", "WARNING",
	/// ..., SQLSTATE, message, detail, hint), on the thread that runs the query, before the query
	/// returns. It must not use the session. Without a handler, notices go to Poco::Logger
	/// "BlueTusk.Transport" (WARNING severity as warning, others as information).

} // namespace BlueTusk

#endif // BlueTusk_NoticeHandler_INCLUDED
