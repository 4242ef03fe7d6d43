//
// PoolerRefusals.cpp
//
// Library: BlueTusk/Transport
//
// A small lexer after PostgreSQL's (src/backend/parser/scan.l, PostgreSQL docs 4.1 "Lexical Structure"): it
// keeps words (keywords and identifiers) and single-character symbols, and skips what cannot hold a
// statement's keywords: comments, string literals, dollar-quoted strings, numbers and parameters.
//

#include "PoolerRefusals.h"
#include <cctype>
#include <vector>

namespace BlueTusk {
namespace Detail {

namespace {

struct Token
{
	enum Kind { Word, Symbol, Other };
	Kind kind;
	std::string text;      /// a word lowercased (a quoted identifier as written); a symbol's character
	bool quoted = false;   /// a quoted identifier ("..."): a name, never a keyword
};


bool isIdentStart(char c)
{
	const unsigned char u = static_cast<unsigned char>(c);
	return std::isalpha(u) || c == '_' || u >= 0x80;
}


bool isIdentChar(char c)
{
	return isIdentStart(c) || std::isdigit(static_cast<unsigned char>(c)) || c == '$';
}


class Lexer
{
public:
	explicit Lexer(const std::string& sql): _sql(sql)
	{
	}

	std::vector<Token> tokens()
	{
		std::vector<Token> out;
		while (_pos < _sql.size())
		{
			const char c = _sql[_pos];
			if (std::isspace(static_cast<unsigned char>(c))) ++_pos;
			else if (startsWith("--")) skipLineComment();
			else if (startsWith("/*")) skipBlockComment();
			else if (c == '\'') skipString(false);
			else if (c == '"') out.push_back(quotedIdentifier());
			else if (c == '$' && dollarTagAt(_pos) > 0) skipDollarQuoted();
			else if (isIdentStart(c)) word(out);
			else if (std::isdigit(static_cast<unsigned char>(c)) || c == '$') number(out);
			else
			{
				out.push_back({Token::Symbol, std::string(1, c)});
				++_pos;
			}
		}
		return out;
	}

private:
	bool startsWith(const char* text) const
	{
		return _sql.compare(_pos, std::char_traits<char>::length(text), text) == 0;
	}

	void skipLineComment()
	{
		const std::size_t end = _sql.find('\n', _pos);
		_pos = end == std::string::npos ? _sql.size() : end + 1;
	}

	void skipBlockComment()
	{
		int depth = 0;   // PostgreSQL's block comments nest
		while (_pos < _sql.size())
		{
			if (startsWith("/*"))
			{
				++depth;
				_pos += 2;
			}
			else if (startsWith("*/"))
			{
				_pos += 2;
				if (--depth == 0) return;
			}
			else ++_pos;
		}
	}

	void skipString(bool backslashEscapes)
		/// From the opening quote: '' is a quote; with backslashEscapes (E'...') \' and \\ too.
	{
		++_pos;
		while (_pos < _sql.size())
		{
			const char c = _sql[_pos++];
			if (backslashEscapes && c == '\\') ++_pos;
			else if (c == '\'')
			{
				if (_pos < _sql.size() && _sql[_pos] == '\'') ++_pos;
				else return;
			}
		}
	}

	Token quotedIdentifier()
	{
		std::string name;
		++_pos;
		while (_pos < _sql.size())
		{
			const char c = _sql[_pos++];
			if (c == '"')
			{
				if (_pos < _sql.size() && _sql[_pos] == '"') ++_pos;
				else break;
			}
			name += c;
		}
		Token token{Token::Word, name};
		token.quoted = true;
		return token;
	}

	std::size_t dollarTagAt(std::size_t at) const
		/// The length of a dollar-quote tag ($$ or $name$) starting at at, 0 if none ($1 is a parameter).
	{
		std::size_t end = at + 1;
		if (end < _sql.size() && isIdentStart(_sql[end]))
		{
			while (end < _sql.size() && isIdentChar(_sql[end]) && _sql[end] != '$') ++end;
		}
		return end < _sql.size() && _sql[end] == '$' ? end + 1 - at : 0;
	}

	void skipDollarQuoted()
	{
		const std::size_t length = dollarTagAt(_pos);
		const std::string tag = _sql.substr(_pos, length);
		const std::size_t end = _sql.find(tag, _pos + length);
		_pos = end == std::string::npos ? _sql.size() : end + length;
	}

	void word(std::vector<Token>& out)
	{
		const std::size_t start = _pos;
		while (_pos < _sql.size() && isIdentChar(_sql[_pos])) ++_pos;
		std::string text = _sql.substr(start, _pos - start);
		for (char& c: text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
		if (_pos < _sql.size() && _sql[_pos] == '\'')
		{
			// A string constant with a prefix: E'...' (backslash escapes), B'', X'', N''; U&'' is the word
			// "u" and the symbol "&" before the quote (its escapes are not backslashes).
			if (text == "e" || text == "b" || text == "x" || text == "n")
			{
				skipString(text == "e");
				return;
			}
		}
		out.push_back({Token::Word, text});
	}

	void number(std::vector<Token>& out)
		/// A number or a parameter ($1): digits, letters, dots (1.5e3, 0x1F).
	{
		++_pos;
		while (_pos < _sql.size() && (std::isalnum(static_cast<unsigned char>(_sql[_pos])) || _sql[_pos] == '.' || _sql[_pos] == '_')) ++_pos;
		out.push_back({Token::Other, std::string()});
	}

	const std::string& _sql;
	std::size_t _pos = 0;
};


using Tokens = std::vector<Token>;


bool isKeyword(const Tokens& tokens, std::size_t i, const char* keyword)
{
	return i < tokens.size() && tokens[i].kind == Token::Word && !tokens[i].quoted && tokens[i].text == keyword;
}


bool isSymbol(const Tokens& tokens, std::size_t i, char symbol)
{
	return i < tokens.size() && tokens[i].kind == Token::Symbol && tokens[i].text[0] == symbol;
}


bool containsSequence(const Tokens& tokens, std::size_t from, const char* first, const char* second, const char* third = nullptr)
{
	for (std::size_t i = from; i + 1 < tokens.size(); ++i)
	{
		if (isKeyword(tokens, i, first) && isKeyword(tokens, i + 1, second) && (!third || isKeyword(tokens, i + 2, third))) return true;
	}
	return false;
}


const char* const SESSION_STAYS = "the pooler hands the server session to other clients once the transaction ends, and this "
	"client's next transaction may run on another one";


PoolerRefusal listenRefusal()
{
	return {"LISTEN", "notifications go to the server session that ran LISTEN; " + std::string(SESSION_STAYS),
		"listen on a connection that does not go through the transaction pooler (a connection string to the server itself)"};
}


PoolerRefusal setRefusal(const std::string& feature)
{
	return {feature, "the setting stays on the server session it ran on; " + std::string(SESSION_STAYS),
		"use SET LOCAL or set_config(name, value, true) inside a transaction block, or ALTER ROLE / ALTER DATABASE ... SET"};
}


PoolerRefusal advisoryLockRefusal(const std::string& function)
{
	return {"the session-level advisory lock " + function + "()",
		"the lock stays with the server session that took it (and its unlock may run on another one); " + std::string(SESSION_STAYS),
		"use pg_advisory_xact_lock() or pg_try_advisory_xact_lock() inside a transaction block"};
}


PoolerRefusal temporaryRefusal(const std::string& feature)
{
	return {feature, "a temporary object belongs to the server session that created it; " + std::string(SESSION_STAYS),
		"create the temporary table inside a transaction block with ON COMMIT DROP and use it in that transaction, or use a regular table"};
}


PoolerRefusal holdRefusal()
{
	return {"DECLARE ... WITH HOLD", "a held cursor outlives its transaction on the server session that declared it; " + std::string(SESSION_STAYS),
		"declare the cursor WITHOUT HOLD inside a transaction block, or use beginFetch() or queryEach()"};
}


PoolerRefusal prepareRefusal()
{
	return {"PREPARE (an SQL-level prepared statement)", "the statement stays on the server session that prepared it; " +
		std::string(SESSION_STAYS), "use prepare() of the session (behind a transaction pooler each run parses it again, in the same "
		"round trip), or a statement with parameters"};
}


PoolerRefusal refuseSet(const Tokens& s)
	/// s starts with SET.
{
	if (isKeyword(s, 1, "local") || isKeyword(s, 1, "transaction") || isKeyword(s, 1, "constraints")) return {};
	if (isKeyword(s, 1, "session"))
	{
		if (isKeyword(s, 2, "characteristics")) return setRefusal("SET SESSION CHARACTERISTICS");
		if (isKeyword(s, 2, "authorization")) return setRefusal("SET SESSION AUTHORIZATION");
		return setRefusal("SET SESSION");
	}
	return setRefusal("SET without LOCAL");
}


PoolerRefusal refuseCreate(const Tokens& s)
	/// s starts with CREATE: CREATE [OR REPLACE] [GLOBAL | LOCAL] {TEMP | TEMPORARY} [RECURSIVE] object.
{
	std::size_t i = 1;
	if (isKeyword(s, i, "or") && isKeyword(s, i + 1, "replace")) i += 2;
	if (isKeyword(s, i, "global") || isKeyword(s, i, "local")) ++i;
	if (!isKeyword(s, i, "temp") && !isKeyword(s, i, "temporary")) return {};
	++i;
	if (isKeyword(s, i, "recursive")) ++i;
	if (isKeyword(s, i, "table"))
	{
		if (containsSequence(s, i, "on", "commit", "drop")) return {};
		return temporaryRefusal("CREATE TEMPORARY TABLE without ON COMMIT DROP");
	}
	std::string kind = i < s.size() ? s[i].text : std::string();
	for (char& c: kind) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
	return temporaryRefusal("CREATE TEMPORARY " + kind);
}


PoolerRefusal refuseDeclare(const Tokens& s)
	/// s starts with DECLARE: DECLARE name [options] CURSOR [{WITH | WITHOUT} HOLD] FOR query.
{
	for (std::size_t i = 1; i < s.size() && !isKeyword(s, i, "for"); ++i)
	{
		if (isKeyword(s, i, "with") && isKeyword(s, i + 1, "hold")) return holdRefusal();
	}
	return {};
}


bool setConfigIsSession(const Tokens& s, std::size_t open)
	/// s[open] is the '(' after set_config: true when its third argument is the keyword false.
{
	int depth = 0;
	int argument = 0;
	std::vector<const Token*> third;
	for (std::size_t i = open; i < s.size(); ++i)
	{
		if (isSymbol(s, i, '(') || isSymbol(s, i, '[')) ++depth;
		else if (isSymbol(s, i, ')') || isSymbol(s, i, ']'))
		{
			if (--depth == 0) break;
		}
		if (depth == 1 && isSymbol(s, i, ',')) ++argument;
		else if (depth >= 1 && argument == 2 && !(depth == 1 && isSymbol(s, i, '('))) third.push_back(&s[i]);
	}
	return third.size() == 1 && third.front()->kind == Token::Word && !third.front()->quoted && third.front()->text == "false";
}


PoolerRefusal refuseFunctions(const Tokens& s)
	/// The session-level functions called anywhere in the statement.
{
	static const char* const LOCKS[] = {"pg_advisory_lock", "pg_advisory_lock_shared", "pg_try_advisory_lock", "pg_try_advisory_lock_shared"};
	for (std::size_t i = 0; i + 1 < s.size(); ++i)
	{
		if (s[i].kind != Token::Word || !isSymbol(s, i + 1, '(')) continue;
		for (const char* lock: LOCKS)
		{
			if (s[i].text == lock) return advisoryLockRefusal(lock);
		}
		if (s[i].text == "set_config" && setConfigIsSession(s, i + 1)) return setRefusal("set_config(..., false)");
	}
	return {};
}


PoolerRefusal refuseStatement(const Tokens& s)
{
	if (s.empty()) return {};
	if (isKeyword(s, 0, "listen")) return listenRefusal();
	if (isKeyword(s, 0, "set")) return refuseSet(s);
	if (isKeyword(s, 0, "declare")) return refuseDeclare(s);
	if (isKeyword(s, 0, "prepare") && !isKeyword(s, 1, "transaction")) return prepareRefusal();
	if (isKeyword(s, 0, "create"))
	{
		PoolerRefusal refusal = refuseCreate(s);
		if (refusal.refused()) return refusal;
	}
	const bool select = isKeyword(s, 0, "select") || isKeyword(s, 0, "with");   // not INSERT INTO temp (a table's name)
	if (select && (containsSequence(s, 0, "into", "temp") || containsSequence(s, 0, "into", "temporary")))
		return temporaryRefusal("SELECT ... INTO TEMPORARY");
	return refuseFunctions(s);
}

} // namespace


PoolerRefusal findPoolerRefusal(const std::string& sql)
{
	const Tokens tokens = Lexer(sql).tokens();
	Tokens statement;
	for (std::size_t i = 0; i <= tokens.size(); ++i)
	{
		if (i == tokens.size() || isSymbol(tokens, i, ';'))
		{
			PoolerRefusal refusal = refuseStatement(statement);
			if (refusal.refused()) return refusal;
			statement.clear();
		}
		else statement.push_back(tokens[i]);
	}
	return {};
}


std::string poolerRefusalMessage(const PoolerRefusal& refusal, const std::string& endpoint, bool detected)
{
	std::string message = "Server Pooling=transaction";
	if (detected) message += " (Server Pooling=auto found " + endpoint + " behind a transaction pooler)";
	message += ": " + refusal.feature + " cannot work behind a transaction pooler";
	if (!detected) message += " (" + endpoint + ")";
	message += ": " + refusal.reason + "; " + refusal.instead + " (doc/poolers.md). Nothing was sent.";
	return message;
}

std::string startupParameterHint(const std::string& serverMessage)
{
	if (serverMessage.find("unsupported startup parameter") == std::string::npos) return std::string();
	return " (a connection pooler such as PgBouncer refuses the startup parameters it does not know unless they are in its "
		"ignore_startup_parameters; BlueTusk sends \"options\" only for the keywords Options and Search Path: remove them and set "
		"the search path with ALTER ROLE ... SET search_path or SET LOCAL inside a transaction block, or add options to "
		"ignore_startup_parameters, where PgBouncer drops it and the setting does not apply; doc/poolers.md)";
}

} } // namespace BlueTusk::Detail
