//
// PeerSupport.cpp
//
// Library: BlueTusk test peers
//

#include "PeerSupport.h"
#include "Poco/Exception.h"
#include "Poco/String.h"
#include <chrono>
#include <sys/socket.h>

namespace BlueTusk {
namespace Test {
namespace Detail {


void StopSignal::request()
{
	{
		std::lock_guard<std::mutex> lock(_mutex);
		_requested = true;
	}
	_condition.notify_all();
}


bool StopSignal::requested() const
{
	std::lock_guard<std::mutex> lock(_mutex);
	return _requested;
}


void StopSignal::notifyAll()
{
	{
		std::lock_guard<std::mutex> lock(_mutex);
	}
	_condition.notify_all();
}


bool StopSignal::waitFor(int milliseconds, const std::function<bool()>& wake)
{
	std::unique_lock<std::mutex> lock(_mutex);
	auto predicate = [&] { return _requested || (wake && wake()); };
	if (milliseconds < 0)
	{
		_condition.wait(lock, predicate);
		return true;
	}
	return _condition.wait_for(lock, std::chrono::milliseconds(milliseconds), predicate);
}


ThreadGroup::~ThreadGroup()
{
	joinAll();
}


void ThreadGroup::start(std::function<void()> function)
{
	auto done = std::make_shared<bool>(false);
	auto doneMutex = _doneMutex;
	std::lock_guard<std::mutex> lock(_mutex);
	_entries.push_back(Entry{std::thread([function, done, doneMutex]
	{
		try
		{
			function();
		}
		catch (...)
		{
		}
		std::lock_guard<std::mutex> doneLock(*doneMutex);
		*done = true;
	}), done});
}


void ThreadGroup::reap()
{
	std::list<Entry> finished;
	{
		std::lock_guard<std::mutex> lock(_mutex);
		std::lock_guard<std::mutex> doneLock(*_doneMutex);
		for (auto it = _entries.begin(); it != _entries.end();)
		{
			if (*it->done)
			{
				auto next = std::next(it);
				finished.splice(finished.end(), _entries, it);
				it = next;
			}
			else ++it;
		}
	}
	for (auto& entry: finished) entry.thread.join();
}


void ThreadGroup::joinAll()
{
	for (;;)
	{
		std::list<Entry> all;
		{
			std::lock_guard<std::mutex> lock(_mutex);
			all.swap(_entries);
		}
		if (all.empty()) return;
		for (auto& entry: all)
		{
			if (entry.thread.joinable()) entry.thread.join();
		}
	}
}


std::size_t ThreadGroup::size() const
{
	std::lock_guard<std::mutex> lock(_mutex);
	return _entries.size();
}


bool waitReadable(const Poco::Net::Socket& socket, const AbortCheck& abort, int timeoutMs)
{
	auto start = std::chrono::steady_clock::now();
	for (;;)
	{
		if (abort && abort()) return false;
		try
		{
			if (socket.available() > 0) return true; // a TLS socket may hold decrypted bytes poll() cannot see
		}
		catch (Poco::Exception&)
		{
			return true;
		}
		int slice = POLL_INTERVAL_MS;
		if (timeoutMs >= 0)
		{
			auto elapsed = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start).count();
			if (elapsed >= timeoutMs) return false;
			if (timeoutMs - elapsed < slice) slice = static_cast<int>(timeoutMs - elapsed);
		}
		try
		{
			if (socket.poll(Poco::Timespan(0, slice * 1000), Poco::Net::Socket::SELECT_READ | Poco::Net::Socket::SELECT_ERROR))
				return true;
		}
		catch (Poco::Exception&)
		{
			return true; // let the following read report the error
		}
	}
}


bool readExact(Poco::Net::StreamSocket& socket, char* buffer, std::size_t length, const AbortCheck& abort)
{
	std::size_t done = 0;
	while (done < length)
	{
		if (!waitReadable(socket, abort)) return false;
		try
		{
			int n = socket.receiveBytes(buffer + done, static_cast<int>(length - done));
			if (n <= 0) return false;
			done += static_cast<std::size_t>(n);
		}
		catch (Poco::Exception&)
		{
			return false;
		}
	}
	return true;
}


bool sendAll(Poco::Net::StreamSocket& socket, const std::string& bytes)
{
	std::size_t done = 0;
	while (done < bytes.size())
	{
		try
		{
			int n = socket.sendBytes(bytes.data() + done, static_cast<int>(bytes.size() - done), MSG_NOSIGNAL);
			if (n <= 0) return false;
			done += static_cast<std::size_t>(n);
		}
		catch (Poco::Exception&)
		{
			return false;
		}
	}
	return true;
}


void closeQuietly(Poco::Net::Socket& socket, bool reset)
{
	try
	{
		if (reset) socket.setLinger(true, 0);
	}
	catch (Poco::Exception&)
	{
	}
	try
	{
		socket.close();
	}
	catch (Poco::Exception&)
	{
	}
}


Poco::Net::ServerSocket listenOn(const Poco::Net::SocketAddress& address, int backlog)
{
	Poco::Net::ServerSocket server;
	server.bind(address, true);
	server.listen(backlog);
	server.setBlocking(false);
	return server;
}


std::string lower(const std::string& text)
{
	return Poco::toLower(text);
}


std::string trim(const std::string& text)
{
	return Poco::trim(text);
}

} } } // namespace BlueTusk::Test::Detail
