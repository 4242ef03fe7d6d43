//
// ScramClient.cpp
//
// Library: BlueTusk/Transport
//

#include "ScramClient.h"
#include "BlueTusk/BlueTuskException.h"
#include "Pbkdf2.h"
#include "Poco/Base64Decoder.h"
#include "Poco/Base64Encoder.h"
#include "Poco/Mutex.h"
#include "Poco/NumberParser.h"
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>
#include <openssl/sha.h>
#include <algorithm>
#include <list>
#include <map>
#include <sstream>

namespace BlueTusk {

namespace {

const int MAX_ITERATIONS = 10000000;
const std::size_t CACHE_CAPACITY = 64;


void wipe(std::string& secret)
{
	if (!secret.empty()) OPENSSL_cleanse(&secret[0], secret.size());
	secret.clear();
}


std::string base64Encode(const std::string& data)
{
	std::ostringstream out;
	Poco::Base64Encoder encoder(out);
	encoder.rdbuf()->setLineLength(0);
	encoder << data;
	encoder.close();
	return out.str();
}


bool base64Decode(const std::string& text, std::string& data)
{
	if (text.empty() || text.size() % 4 != 0) return false;
	for (char c: text)
	{
		if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '+' || c == '/' || c == '=')) return false;
	}
	try
	{
		std::istringstream in(text);
		Poco::Base64Decoder decoder(in);
		data.assign(std::istreambuf_iterator<char>(decoder), std::istreambuf_iterator<char>());
		return true;
	}
	catch (Poco::Exception&)
	{
		return false;
	}
}


std::string hmacSha256(const std::string& key, const std::string& data)
{
	unsigned char out[EVP_MAX_MD_SIZE];
	unsigned int length = 0;
	if (!HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()), reinterpret_cast<const unsigned char*>(data.data()), data.size(), out, &length))
		throw BlueTuskAuthenticationException("SCRAM: HMAC-SHA-256 failed in OpenSSL");
	std::string result(reinterpret_cast<const char*>(out), length);
	OPENSSL_cleanse(out, sizeof(out));
	return result;
}


std::string sha256(const std::string& data)
{
	unsigned char out[SHA256_DIGEST_LENGTH];
	SHA256(reinterpret_cast<const unsigned char*>(data.data()), data.size(), out);
	std::string result(reinterpret_cast<const char*>(out), sizeof(out));
	OPENSSL_cleanse(out, sizeof(out));
	return result;
}


std::string escapeUser(const std::string& user)
{
	std::string escaped;
	for (char c: user)
	{
		if (c == ',') escaped += "=2C";
		else if (c == '=') escaped += "=3D";
		else escaped += c;
	}
	return escaped;
}


class SaltedPasswordCache
	/// A small LRU cache: SHA-256(password, salt, iterations) -> salted password.
{
public:
	bool find(const std::string& key, std::string& value)
	{
		Poco::FastMutex::ScopedLock lock(_mutex);
		auto it = _entries.find(key);
		if (it == _entries.end()) return false;
		_order.splice(_order.begin(), _order, it->second.second);
		value = it->second.first;
		return true;
	}

	void insert(const std::string& key, const std::string& value)
	{
		Poco::FastMutex::ScopedLock lock(_mutex);
		auto it = _entries.find(key);
		if (it != _entries.end()) return;
		while (_entries.size() >= CACHE_CAPACITY && !_order.empty())
		{
			auto victim = _entries.find(_order.back());
			if (victim != _entries.end())
			{
				wipe(victim->second.first);
				_entries.erase(victim);
			}
			_order.pop_back();
		}
		_order.push_front(key);
		_entries.emplace(key, std::make_pair(value, _order.begin()));
	}

	void clear()
	{
		Poco::FastMutex::ScopedLock lock(_mutex);
		for (auto& entry: _entries) wipe(entry.second.first);
		_entries.clear();
		_order.clear();
	}

	std::size_t size() const
	{
		Poco::FastMutex::ScopedLock lock(_mutex);
		return _entries.size();
	}

	~SaltedPasswordCache()
	{
		clear();
	}

private:
	std::list<std::string> _order;
	std::map<std::string, std::pair<std::string, std::list<std::string>::iterator>> _entries;
	mutable Poco::FastMutex _mutex;
};


SaltedPasswordCache& cache()
{
	static SaltedPasswordCache instance;
	return instance;
}


std::string randomNonce()
{
	unsigned char bytes[18];
	if (RAND_bytes(bytes, sizeof(bytes)) != 1)
		throw BlueTuskAuthenticationException("SCRAM: could not generate a random nonce (OpenSSL RAND_bytes failed)");
	return base64Encode(std::string(reinterpret_cast<const char*>(bytes), sizeof(bytes)));
}

} // namespace


ScramClient::ScramClient(const std::string& password, ChannelBinding binding, const std::string& channelBindingData):
	ScramClient(password, binding, channelBindingData, std::string(), randomNonce())
{
}


ScramClient::ScramClient(const std::string& password, ChannelBinding binding, const std::string& channelBindingData, const std::string& user, const std::string& clientNonce):
	_password(password),
	_binding(binding),
	_channelBindingData(channelBindingData),
	_user(user),
	_clientNonce(clientNonce)
{
	if (_binding == TLS_SERVER_END_POINT && _channelBindingData.empty())
		throw BlueTuskAuthenticationException("SCRAM-SHA-256-PLUS needs the server certificate hash for channel binding");
	_clientFirstBare = "n=" + escapeUser(_user) + ",r=" + _clientNonce;
}


ScramClient::~ScramClient()
{
	wipe(_password);
	wipe(_clientNonce);
	wipe(_clientFirstBare);
	wipe(_expectedServerSignature);
}


std::string ScramClient::mechanism() const
{
	return _binding == TLS_SERVER_END_POINT ? "SCRAM-SHA-256-PLUS" : "SCRAM-SHA-256";
}


std::string ScramClient::gs2Header() const
{
	switch (_binding)
	{
	case SUPPORTED:            return "y,,";
	case TLS_SERVER_END_POINT: return "p=tls-server-end-point,,";
	case NONE:                 break;
	}
	return "n,,";
}


std::string ScramClient::clientFirstMessage() const
{
	return gs2Header() + _clientFirstBare;
}


std::string ScramClient::clientFinalMessage(const std::string& serverFirstMessage, const Deadline* deadline)
{
	// r=<nonce>,s=<salt>,i=<iterations>[,extensions]
	std::string nonce, saltText, iterationsText;
	std::size_t pos = 0;
	int index = 0;
	while (pos <= serverFirstMessage.size())
	{
		std::size_t comma = serverFirstMessage.find(',', pos);
		if (comma == std::string::npos) comma = serverFirstMessage.size();
		const std::string attribute = serverFirstMessage.substr(pos, comma - pos);
		if (attribute.size() < 2 || attribute[1] != '=')
			throw BlueTuskAuthenticationException("SCRAM: malformed server-first-message from the server");
		const std::string value = attribute.substr(2);
		switch (index)
		{
		case 0:
			if (attribute[0] == 'm') throw BlueTuskAuthenticationException("SCRAM: the server requires an extension BlueTusk does not support");
			if (attribute[0] != 'r') throw BlueTuskAuthenticationException("SCRAM: server-first-message does not start with the nonce");
			nonce = value;
			break;
		case 1:
			if (attribute[0] != 's') throw BlueTuskAuthenticationException("SCRAM: server-first-message has no salt");
			saltText = value;
			break;
		case 2:
			if (attribute[0] != 'i') throw BlueTuskAuthenticationException("SCRAM: server-first-message has no iteration count");
			iterationsText = value;
			break;
		default:
			break; // extensions are ignored (RFC 5802 section 5.1)
		}
		++index;
		pos = comma + 1;
	}
	if (index < 3) throw BlueTuskAuthenticationException("SCRAM: server-first-message is incomplete");
	if (nonce.size() <= _clientNonce.size() || nonce.compare(0, _clientNonce.size(), _clientNonce) != 0)
		throw BlueTuskAuthenticationException("SCRAM: the server nonce does not extend the client nonce");
	for (char c: nonce)
	{
		if (c < 0x21 || c > 0x7E || c == ',') throw BlueTuskAuthenticationException("SCRAM: the server nonce contains invalid characters");
	}
	std::string salt;
	if (!base64Decode(saltText, salt) || salt.empty()) throw BlueTuskAuthenticationException("SCRAM: the salt is not valid base64");
	int iterations = 0;
	if (!Poco::NumberParser::tryParse(iterationsText, iterations) || iterations < 1 || iterations > MAX_ITERATIONS)
		throw BlueTuskAuthenticationException("SCRAM: invalid iteration count (must be 1.." + std::to_string(MAX_ITERATIONS) + ")");

	std::string salted = saltedPassword(_password, salt, iterations, deadline);
	std::string clientKey = hmacSha256(salted, "Client Key");
	std::string storedKey = sha256(clientKey);
	const std::string channelBinding = "c=" + base64Encode(gs2Header() + (_binding == TLS_SERVER_END_POINT ? _channelBindingData : std::string()));
	const std::string withoutProof = channelBinding + ",r=" + nonce;
	std::string authMessage = _clientFirstBare + "," + serverFirstMessage + "," + withoutProof;
	std::string clientSignature = hmacSha256(storedKey, authMessage);
	std::string proof(clientKey.size(), '\0');
	for (std::size_t i = 0; i < proof.size(); ++i) proof[i] = static_cast<char>(clientKey[i] ^ clientSignature[i]);
	std::string serverKey = hmacSha256(salted, "Server Key");
	_expectedServerSignature = hmacSha256(serverKey, authMessage);
	std::string result = withoutProof + ",p=" + base64Encode(proof);
	wipe(salted);
	wipe(clientKey);
	wipe(storedKey);
	wipe(authMessage);
	wipe(clientSignature);
	wipe(proof);
	wipe(serverKey);
	return result;
}


void ScramClient::verifyServerFinal(const std::string& serverFinalMessage) const
{
	if (serverFinalMessage.compare(0, 2, "e=") == 0)
	{
		std::string error = serverFinalMessage.substr(2, serverFinalMessage.find(',') == std::string::npos ? std::string::npos : serverFinalMessage.find(',') - 2);
		throw BlueTuskAuthenticationException("SCRAM authentication failed on the server: " + error);
	}
	if (serverFinalMessage.compare(0, 2, "v=") != 0)
		throw BlueTuskAuthenticationException("SCRAM: malformed server-final-message from the server");
	if (_expectedServerSignature.empty())
		throw BlueTuskAuthenticationException("SCRAM: server-final-message before the client-final-message");
	std::string text = serverFinalMessage.substr(2, serverFinalMessage.find(',') == std::string::npos ? std::string::npos : serverFinalMessage.find(',') - 2);
	std::string signature;
	if (!base64Decode(text, signature) || signature.size() != _expectedServerSignature.size() ||
		CRYPTO_memcmp(signature.data(), _expectedServerSignature.data(), signature.size()) != 0)
	{
		throw BlueTuskAuthenticationException("SCRAM: the server signature does not verify; the server does not know the password "
			"(or the connection was intercepted)");
	}
}


std::string ScramClient::saltedPassword(const std::string& password, const std::string& salt, int iterations, const Deadline* deadline)
{
	std::string keyMaterial = password;
	keyMaterial.push_back('\0');
	keyMaterial += salt;
	keyMaterial.push_back('\0');
	keyMaterial += std::to_string(iterations);
	const std::string key = sha256(keyMaterial);
	wipe(keyMaterial);
	std::string salted;
	if (cache().find(key, salted)) return salted;
	salted = Detail::pbkdf2Sha256(password, salt, iterations, deadline);
	cache().insert(key, salted);
	return salted;
}


void ScramClient::clearCache()
{
	cache().clear();
}


std::size_t ScramClient::cacheSize()
{
	return cache().size();
}

} // namespace BlueTusk
