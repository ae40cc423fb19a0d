// The authorization server of tests/auth: panva's oidc-provider (a certified OpenID
// provider), run by the tests on a loopback port. Not a mock: tokens, discovery,
// registration, consent and JWKS are the library's own.
//
//   node provider.mjs PORT KEYS_FILE RESOURCE [RESOURCE...]
//
// KEYS_FILE: a private JWKS (the test writes it, and writes a new one to rotate keys
// before starting the provider again on the same port). Tokens asked for a RESOURCE
// (RFC 8707 `resource`) are JWTs signed by the first key, with that resource as their
// audience (opaque, for introspection, with OPAQUE_TOKENS=1); every listed resource is
// known, so a token for another one can be had.
import { readFileSync } from 'node:fs';
import Provider from 'oidc-provider';

const [port, keysFile, ...resources] = process.argv.slice(2);
const issuer = `http://127.0.0.1:${port}`;
const jwks = JSON.parse(readFileSync(keysFile, 'utf8'));
const SCOPES = ['mcp:tools', 'tools:deploy', 'tools:admin'];

const provider = new Provider(issuer, {
  jwks,
  clients: [
    {
      // The tests' own client: client_credentials tokens for any known resource.
      client_id: 'tester',
      client_secret: 'tester-secret',
      grant_types: ['client_credentials'],
      redirect_uris: [],
      response_types: [],
      scope: SCOPES.join(' '),
    },
    {
      // Another user's client: a second principal.
      client_id: 'other',
      client_secret: 'other-secret',
      grant_types: ['client_credentials'],
      redirect_uris: [],
      response_types: [],
      scope: SCOPES.join(' '),
    },
    {
      // The resource server's introspection client (RFC 7662).
      client_id: 'toolkiln',
      client_secret: 'toolkiln-secret',
      grant_types: [],
      redirect_uris: [],
      response_types: [],
    },
  ],
  scopes: ['openid', 'offline_access', ...SCOPES],
  clientDefaults: { scope: ['openid', 'offline_access', ...SCOPES].join(' '), id_token_signed_response_alg: jwks.keys[0].alg },
  features: {
    devInteractions: { enabled: true }, // the login and consent pages the test fills in
    registration: { enabled: true }, // dynamic client registration (the SDK client's)
    clientCredentials: { enabled: true },
    introspection: { enabled: true },
    resourceIndicators: {
      enabled: true,
      defaultResource: () => resources[0],
      useGrantedResource: () => true,
      getResourceServerInfo: (ctx, resource) => {
        if (!resources.includes(resource)) {
          throw new Provider.errors.InvalidTarget(`unknown resource ${resource}`);
        }
        const opaque = process.env.OPAQUE_TOKENS === '1';
        return {
          scope: SCOPES.join(' '),
          audience: resource,
          accessTokenTTL: 600,
          accessTokenFormat: opaque ? 'opaque' : 'jwt',
          ...(opaque ? {} : { jwt: { sign: { alg: jwks.keys[0].alg } } }),
        };
      },
    },
  },
});
provider.proxy = false;
// Registration policy: a client registered with a `scope` (the SDK registers with the
// scope of the first challenge) may still ask later for any scope of the resource, as
// step-up authorization needs; without this, oidc-provider holds it to that first scope.
provider.use(async (ctx, next) => {
  if (ctx.method === 'POST' && ctx.path === '/reg') {
    const chunks = [];
    for await (const chunk of ctx.req) chunks.push(chunk);
    const metadata = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    delete metadata.scope;
    ctx.request.body = metadata;
  }
  await next();
});
provider.listen(Number(port), '127.0.0.1', () => {
  process.stdout.write(`ready ${issuer}\n`);
});
