//
// CapturingChannel.h
//
// A Poco::Channel that keeps every message it is given, for tests that check what BlueTusk logs (that a
// log line names what it is about, that no secret reaches any logger). Thread-safe: pools and routers log
// from their own threads.
//

#ifndef BlueTusk_CapturingChannel_INCLUDED
#define BlueTusk_CapturingChannel_INCLUDED

#include "Poco/AutoPtr.h"
#include "Poco/Channel.h"
#include "Poco/Logger.h"
#include "Poco/Message.h"
#include <mutex>
#include <string>
#include <vector>

namespace BlueTusk {
namespace Test {

class CapturingChannel: public Poco::Channel
{
public:
	void log(const Poco::Message& message) override
		/// Keeps the message's text and, separately, "source: text" lines.
	{
		std::lock_guard<std::mutex> lock(_mutex);
		_messages.push_back(message.getText());
		_lines.push_back(message.getSource() + ": " + message.getText());
	}

	std::vector<std::string> messages() const
		/// The texts of the messages logged so far, oldest first.
	{
		std::lock_guard<std::mutex> lock(_mutex);
		return _messages;
	}

	std::vector<std::string> lines() const
		/// "source: text" of each message logged so far, oldest first.
	{
		std::lock_guard<std::mutex> lock(_mutex);
		return _lines;
	}

	std::string text() const
		/// Every line so far, each ended by '\n'.
	{
		std::lock_guard<std::mutex> lock(_mutex);
		std::string text;
		for (const std::string& line: _lines) text += line + "\n";
		return text;
	}

private:
	mutable std::mutex _mutex;
	std::vector<std::string> _messages;
	std::vector<std::string> _lines;
};

class LogCapture
	/// Sends every logger's messages, at trace level, to a CapturingChannel while it lives (Poco's root
	/// logger and, through Poco::Logger::setChannel(""), every logger already created); restores the root
	/// logger's channel and level when destroyed. Not thread-safe itself: create and destroy it in one
	/// thread (a test's setUp and tearDown) while the code under test logs from any.
{
public:
	LogCapture():
		_channel(new CapturingChannel),
		_savedChannel(Poco::Logger::root().getChannel(), true),
		_savedLevel(Poco::Logger::root().getLevel())
	{
		Poco::Logger::setChannel("", _channel);
		Poco::Logger::setLevel("", Poco::Message::PRIO_TRACE);
	}

	~LogCapture()
	{
		Poco::Logger::setChannel("", _savedChannel);
		Poco::Logger::setLevel("", _savedLevel);
	}

	LogCapture(const LogCapture&) = delete;
	LogCapture& operator=(const LogCapture&) = delete;

	const CapturingChannel& channel() const
		/// What was logged so far.
	{
		return *_channel;
	}

private:
	Poco::AutoPtr<CapturingChannel> _channel;
	Poco::AutoPtr<Poco::Channel> _savedChannel;
	int _savedLevel;
};

} } // namespace BlueTusk::Test

#endif // BlueTusk_CapturingChannel_INCLUDED
