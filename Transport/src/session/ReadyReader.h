//
// ReadyReader.h
//
// Library: BlueTusk/Transport
//
// The one reader of a ProtocolSession's backend messages up to ReadyForQuery (PostgreSQL docs 55.2.2,
// 55.2.3): what every command's answer shares (the wait under the command timeout with its CancelRequest,
// ReadyForQuery, the asynchronous messages, a protocol violation breaking the session), with the
// messages of the command's own answer left to a handler.
//

#ifndef BlueTusk_Detail_ReadyReader_INCLUDED
#define BlueTusk_Detail_ReadyReader_INCLUDED

#include "ProtocolSession.h"
#include "protocol/MessageDecoding.h"
#include <string>

namespace BlueTusk {
namespace Detail {

inline const BackendMessage& copyOf(const MessageReader::View& view, BackendMessage& message)
	/// message, holding view's type and a copy of its body (for BackendMessage's decoders); message's
	/// body keeps its capacity across calls.
{
	message.type = view.type;
	message.body.assign(view.body, view.length);
	return message;
}

} // namespace Detail


template <typename OnMessage>
void ProtocolSession::readToReady(const char* during, OnMessage&& onMessage)
{
	BackendMessage message;     // for handleAsync(); reused: its body keeps its capacity across messages
	MessageReader::View view;   // the message in the reader's buffer: decoded without a copy
	for (;;)
	{
		awaitInCycle();
		_reader.next(view);
		try
		{
			if (view.type == 'Z')
			{
				handleReady(Detail::decodeReadyForQuery(view.type, view.body, view.length));
				return;
			}
			if (onMessage(view)) continue;
			if (!handleAsync(Detail::copyOf(view, message)))
				throw BlueTuskProtocolException("unexpected " + message.typeName() + " from " + where() + " " + during);
		}
		catch (BlueTuskProtocolException&)
		{
			markBroken();
			closeSocket();
			throw;
		}
	}
}

} // namespace BlueTusk

#endif // BlueTusk_Detail_ReadyReader_INCLUDED
