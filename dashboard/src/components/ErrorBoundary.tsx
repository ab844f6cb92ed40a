// A page that fails to draw (an answer it did not expect) says so in place of itself, with its error,
// instead of blanking the whole dashboard; the navigation stays, and another page starts afresh.
import { Component, type ReactNode } from 'react';

interface Props {
  children: ReactNode;
}

export class PageErrorBoundary extends Component<Props, { error?: Error }> {
  state: { error?: Error } = {};

  static getDerivedStateFromError(error: Error) {
    return { error };
  }

  render() {
    if (!this.state.error) return this.props.children;
    return (
      <div role="alert" className="error-note">
        <strong>This page failed to draw: {this.state.error.message}</strong>
        <p>
          <button type="button" onClick={() => this.setState({ error: undefined })}>
            Try again
          </button>
        </p>
      </div>
    );
  }
}
