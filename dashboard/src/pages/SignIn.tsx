// The sign-in form (README "The dashboard"): fields labelled Email and Password, a button named
// Sign in; a refusal shows the API's message.
import { type FormEvent, useState } from 'react';
import { type ApiError, ApiFailure, errorOf } from '../api.ts';
import { ErrorNote, TextField } from '../components/ui.tsx';
import { useSessionState } from '../session.tsx';

export function SignIn() {
  const { signIn, ended } = useSessionState();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<ApiError>();
  const [pending, setPending] = useState(false);

  async function submit(event: FormEvent) {
    event.preventDefault();
    setPending(true);
    setError(undefined);
    try {
      await signIn(email, password);
    } catch (err) {
      setError(err instanceof ApiFailure ? err.body : errorOf(err));
    } finally {
      setPending(false);
    }
  }

  return (
    <main id="main" className="sign-in">
      <h1>Sign in to engage</h1>
      {ended ? <p role="status">{ended}</p> : null}
      <form onSubmit={submit} aria-label="Sign in">
        <TextField label="Email" type="email" value={email} onChange={setEmail} required autoComplete="username" />
        <TextField label="Password" type="password" value={password} onChange={setPassword} required autoComplete="current-password" />
        <ErrorNote error={error} />
        <button type="submit" className="primary" disabled={pending}>
          Sign in
        </button>
      </form>
      <p className="hint">The first start of the service prints the first account's owner and password.</p>
    </main>
  );
}
