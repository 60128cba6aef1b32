/// The REST API's OpenAPI document, served at `/api/v1/openapi.json` (a copy of Examples/Gifts/openapi.json, which
/// compat/test_gifts_rest.py checks against this one and tests the API with).
extension Gifts {
    static let openAPIDocument = #"""
{
  "openapi": "3.0.3",
  "info": {
    "title": "Gifts REST API (served by Hearth)",
    "version": "1.0.0",
    "description": "The gift wishlist app's original REST API, served by Hearth's HTTP functions from the same rules-checked data as the realtime database. The bearer token is a Hearth ID token from register or login (or any Hearth sign-in)."
  },
  "servers": [
    {
      "url": "/"
    }
  ],
  "components": {
    "securitySchemes": {
      "bearerAuth": {
        "type": "http",
        "scheme": "bearer",
        "bearerFormat": "JWT"
      }
    },
    "schemas": {
      "Error": {
        "type": "object",
        "required": [
          "message"
        ],
        "properties": {
          "message": {
            "type": "string"
          }
        }
      },
      "Credentials": {
        "type": "object",
        "required": [
          "login",
          "password"
        ],
        "properties": {
          "login": {
            "type": "string"
          },
          "password": {
            "type": "string"
          }
        }
      },
      "Registration": {
        "type": "object",
        "required": [
          "login",
          "password",
          "firstName",
          "lastName"
        ],
        "properties": {
          "login": {
            "type": "string",
            "pattern": "^[A-Za-z0-9._-]{3,64}$"
          },
          "password": {
            "type": "string"
          },
          "firstName": {
            "type": "string"
          },
          "lastName": {
            "type": "string"
          }
        }
      },
      "Account": {
        "type": "object",
        "required": [
          "id",
          "login",
          "firstName",
          "lastName",
          "token"
        ],
        "properties": {
          "id": {
            "type": "string"
          },
          "login": {
            "type": "string"
          },
          "firstName": {
            "type": "string"
          },
          "lastName": {
            "type": "string"
          },
          "token": {
            "type": "string"
          }
        },
        "additionalProperties": false
      },
      "NewGift": {
        "type": "object",
        "required": [
          "name"
        ],
        "properties": {
          "name": {
            "type": "string",
            "minLength": 1,
            "maxLength": 200
          },
          "description": {
            "type": "string",
            "maxLength": 2000
          },
          "link": {
            "type": "string",
            "maxLength": 2000
          },
          "price": {
            "type": "number",
            "minimum": 0
          }
        }
      },
      "Gift": {
        "type": "object",
        "required": [
          "id",
          "name",
          "received",
          "reserved"
        ],
        "properties": {
          "id": {
            "type": "string"
          },
          "name": {
            "type": "string"
          },
          "description": {
            "type": "string",
            "nullable": true
          },
          "link": {
            "type": "string",
            "nullable": true
          },
          "price": {
            "type": "number",
            "nullable": true
          },
          "received": {
            "type": "boolean"
          },
          "reserved": {
            "type": "boolean",
            "description": "Whether someone reserved it; never who."
          }
        },
        "additionalProperties": false
      },
      "Reservation": {
        "type": "object",
        "required": [
          "id",
          "giftId",
          "ownerId",
          "name",
          "ownerName"
        ],
        "properties": {
          "id": {
            "type": "string",
            "description": "{ownerId}_{giftId}"
          },
          "giftId": {
            "type": "string"
          },
          "ownerId": {
            "type": "string"
          },
          "name": {
            "type": "string"
          },
          "ownerName": {
            "type": "string"
          }
        },
        "additionalProperties": false
      },
      "Rating": {
        "type": "object",
        "required": [
          "name",
          "count"
        ],
        "properties": {
          "name": {
            "type": "string"
          },
          "count": {
            "type": "integer",
            "minimum": 1
          }
        },
        "additionalProperties": false
      }
    }
  },
  "paths": {
    "/api/v1/auth/register": {
      "post": {
        "operationId": "register",
        "summary": "Create an account",
        "requestBody": {
          "required": true,
          "content": {
            "application/json": {
              "schema": {
                "$ref": "#/components/schemas/Registration"
              }
            }
          }
        },
        "responses": {
          "200": {
            "description": "The account and its token",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Account"
                }
              }
            }
          },
          "400": {
            "description": "A missing or invalid field",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          },
          "403": {
            "description": "Login is already used!",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          }
        }
      }
    },
    "/api/v1/auth/login": {
      "post": {
        "operationId": "login",
        "summary": "Sign in",
        "requestBody": {
          "required": true,
          "content": {
            "application/json": {
              "schema": {
                "$ref": "#/components/schemas/Credentials"
              }
            }
          }
        },
        "responses": {
          "200": {
            "description": "The account and a new token",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Account"
                }
              }
            }
          },
          "403": {
            "description": "Invalid login or password!",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          }
        }
      }
    },
    "/api/v1/user/{userId}/request": {
      "get": {
        "operationId": "listGifts",
        "summary": "A user's wishlist",
        "security": [
          {
            "bearerAuth": []
          }
        ],
        "parameters": [
          {
            "name": "userId",
            "in": "path",
            "required": true,
            "schema": {
              "type": "string"
            }
          }
        ],
        "responses": {
          "200": {
            "description": "The wishes, oldest first",
            "content": {
              "application/json": {
                "schema": {
                  "type": "array",
                  "items": {
                    "$ref": "#/components/schemas/Gift"
                  }
                }
              }
            }
          },
          "401": {
            "description": "No or a bad token",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          }
        }
      },
      "post": {
        "operationId": "createGift",
        "summary": "Add a wish to one's own list",
        "security": [
          {
            "bearerAuth": []
          }
        ],
        "parameters": [
          {
            "name": "userId",
            "in": "path",
            "required": true,
            "schema": {
              "type": "string"
            }
          }
        ],
        "requestBody": {
          "required": true,
          "content": {
            "application/json": {
              "schema": {
                "$ref": "#/components/schemas/NewGift"
              }
            }
          }
        },
        "responses": {
          "201": {
            "description": "The new wish",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Gift"
                }
              }
            }
          },
          "400": {
            "description": "An invalid wish",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          },
          "401": {
            "description": "No or a bad token",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          },
          "403": {
            "description": "Not one's own list",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          }
        }
      }
    },
    "/api/v1/user/{userId}/request/{giftId}": {
      "delete": {
        "operationId": "deleteGift",
        "summary": "Delete one of one's wishes (its reservation goes with it)",
        "security": [
          {
            "bearerAuth": []
          }
        ],
        "parameters": [
          {
            "name": "userId",
            "in": "path",
            "required": true,
            "schema": {
              "type": "string"
            }
          },
          {
            "name": "giftId",
            "in": "path",
            "required": true,
            "schema": {
              "type": "string"
            }
          }
        ],
        "responses": {
          "204": {
            "description": "Deleted"
          },
          "401": {
            "description": "No or a bad token",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          },
          "403": {
            "description": "Not one's own list",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          },
          "404": {
            "description": "Gift not found!",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          }
        }
      }
    },
    "/api/v1/user/{userId}/reservation": {
      "get": {
        "operationId": "listReservations",
        "summary": "What the user reserved, with names and owners",
        "security": [
          {
            "bearerAuth": []
          }
        ],
        "parameters": [
          {
            "name": "userId",
            "in": "path",
            "required": true,
            "schema": {
              "type": "string"
            }
          }
        ],
        "responses": {
          "200": {
            "description": "The reservations",
            "content": {
              "application/json": {
                "schema": {
                  "type": "array",
                  "items": {
                    "$ref": "#/components/schemas/Reservation"
                  }
                }
              }
            }
          },
          "401": {
            "description": "No or a bad token",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          },
          "403": {
            "description": "Not one's own reservations",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          }
        }
      }
    },
    "/api/v1/user/{requesterId}/reserve/{giftId}": {
      "patch": {
        "operationId": "reserveGift",
        "summary": "Reserve a friend's wish (exclusive)",
        "security": [
          {
            "bearerAuth": []
          }
        ],
        "parameters": [
          {
            "name": "requesterId",
            "in": "path",
            "required": true,
            "schema": {
              "type": "string"
            },
            "description": "The owner of the wish."
          },
          {
            "name": "giftId",
            "in": "path",
            "required": true,
            "schema": {
              "type": "string"
            }
          },
          {
            "name": "activeUserId",
            "in": "query",
            "required": true,
            "schema": {
              "type": "string"
            },
            "description": "The signed-in user (who reserves or cancels)."
          }
        ],
        "responses": {
          "200": {
            "description": "The wish, now reserved",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Gift"
                }
              }
            }
          },
          "400": {
            "description": "activeUserId missing",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          },
          "401": {
            "description": "No or a bad token",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          },
          "403": {
            "description": "One's own or a received wish, or activeUserId is not the caller",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          },
          "404": {
            "description": "Gift not found!",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          },
          "409": {
            "description": "Gift is already reserved!",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          }
        }
      },
      "delete": {
        "operationId": "cancelReservation",
        "summary": "Cancel one's reservation",
        "security": [
          {
            "bearerAuth": []
          }
        ],
        "parameters": [
          {
            "name": "requesterId",
            "in": "path",
            "required": true,
            "schema": {
              "type": "string"
            },
            "description": "The owner of the wish."
          },
          {
            "name": "giftId",
            "in": "path",
            "required": true,
            "schema": {
              "type": "string"
            }
          },
          {
            "name": "activeUserId",
            "in": "query",
            "required": true,
            "schema": {
              "type": "string"
            },
            "description": "The signed-in user (who reserves or cancels)."
          }
        ],
        "responses": {
          "204": {
            "description": "Cancelled; the wish is free again"
          },
          "400": {
            "description": "activeUserId missing",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          },
          "401": {
            "description": "No or a bad token",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          },
          "403": {
            "description": "activeUserId is not the caller",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          },
          "404": {
            "description": "Reservation not found!",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          }
        }
      }
    },
    "/api/v1/gift/rating": {
      "get": {
        "operationId": "topGifts",
        "summary": "Gift names by how many people wish for them",
        "security": [
          {
            "bearerAuth": []
          }
        ],
        "responses": {
          "200": {
            "description": "Most wished first",
            "content": {
              "application/json": {
                "schema": {
                  "type": "array",
                  "items": {
                    "$ref": "#/components/schemas/Rating"
                  }
                }
              }
            }
          },
          "401": {
            "description": "No or a bad token",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          }
        }
      }
    },
    "/api/v1/openapi.json": {
      "get": {
        "operationId": "openapi",
        "summary": "This document",
        "responses": {
          "200": {
            "description": "The OpenAPI document",
            "content": {
              "application/json": {
                "schema": {
                  "type": "object"
                }
              }
            }
          }
        }
      }
    }
  }
}
"""#
}
