//
// BlackHole.cpp
//
// bluetusk-blackhole ADDRESS PORT: a TCP listener that never answers, so that connecting to it hangs until
// the client's timeout, the way a host behind a dropping firewall or a dead route does. Used by scripts/demo
// for the "black-holed host" step (doc/samples.md).
//
// How: listen with a backlog of 0 and never accept; one filler connection from this process fills the
// accept queue, after which the kernel drops further SYNs and clients wait (no iptables or root
// needed). Runs until SIGTERM or SIGINT. Prints one line "listening on ADDRESS:PORT" when ready.
//

#include "Poco/Net/ServerSocket.h"
#include "Poco/Net/SocketAddress.h"
#include "Poco/Net/StreamSocket.h"
#include "Poco/Exception.h"
#include "Poco/NumberParser.h"
#include <csignal>
#include <iostream>
#include <pthread.h>

int main(int argc, char** argv)
{
	if (argc != 3)
	{
		std::cerr << "usage: bluetusk-blackhole ADDRESS PORT   (e.g. bluetusk-blackhole 127.0.0.4 55432)" << std::endl;
		return 1;
	}
	sigset_t signals;
	sigemptyset(&signals);
	sigaddset(&signals, SIGTERM);
	sigaddset(&signals, SIGINT);
	pthread_sigmask(SIG_BLOCK, &signals, nullptr);
	try
	{
		Poco::Net::SocketAddress address(argv[1], static_cast<Poco::UInt16>(Poco::NumberParser::parseUnsigned(argv[2])));
		Poco::Net::ServerSocket listener;
		listener.bind(address, true);
		listener.listen(0);
		Poco::Net::StreamSocket filler;
		filler.connect(listener.address(), Poco::Timespan(2, 0));
		Poco::Net::StreamSocket extra;
		extra.connectNB(listener.address());
		std::cout << "listening on " << listener.address().toString() << std::endl;
		int received = 0;
		sigwait(&signals, &received);
		return 0;
	}
	catch (Poco::Exception& exc)
	{
		std::cerr << "bluetusk-blackhole: " << exc.displayText() << std::endl;
		return 2;
	}
}
